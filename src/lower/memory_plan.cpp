// Static memory planning of the workspace arena: liveness-ordered greedy best-fit allocation
// with coalescing of freed blocks; tensors inside others placed relative to them.
#include "lower/memory_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "support/error.h"

namespace ingot::lower {

int64_t align_up(int64_t n, int64_t alignment) {
  return (n + alignment - 1) / alignment * alignment;
}

namespace {

// Free blocks keyed by offset, coalesced on insertion.
class FreeList {
 public:
  void release(int64_t offset, int64_t size) {
    auto next = blocks_.lower_bound(offset);
    if (next != blocks_.end() && offset + size == next->first) {
      size += next->second;
      next = blocks_.erase(next);
    }
    if (next != blocks_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += size;
        return;
      }
    }
    blocks_[offset] = size;
  }

  // Best fit; -1 when no block is large enough.
  int64_t take(int64_t size) {
    auto best = blocks_.end();
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (it->second >= size && (best == blocks_.end() || it->second < best->second)) best = it;
    }
    if (best == blocks_.end()) return -1;
    int64_t offset = best->first, rest = best->second - size;
    blocks_.erase(best);
    if (rest > 0) blocks_[offset + size] = rest;
    return offset;
  }

  // Removes and returns the block ending at `end` (its offset), or -1.
  int64_t take_tail(int64_t end) {
    if (blocks_.empty()) return -1;
    auto last = std::prev(blocks_.end());
    if (last->first + last->second != end) return -1;
    int64_t offset = last->first;
    blocks_.erase(last);
    return offset;
  }

 private:
  std::map<int64_t, int64_t> blocks_;
};

// Each tensor's outermost enclosing tensor (itself when it has no parent) and its byte offset in
// it; checks that parents exist, form no cycle and contain their children.
void resolve_parents(const std::vector<BufferLifetime>& buffers, std::vector<size_t>& root,
                     std::vector<int64_t>& offset) {
  size_t n = buffers.size();
  root.assign(n, 0);
  offset.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const BufferLifetime& t = buffers[i];
    INGOT_ICHECK(t.bytes >= 0 && t.first_use <= t.last_use, "bad lifetime [{}, {}] of {} bytes",
                 t.first_use, t.last_use, t.bytes);
    size_t at = i;
    for (size_t steps = 0; buffers[at].parent >= 0; ++steps) {
      const BufferLifetime& c = buffers[at];
      INGOT_ICHECK(size_t(c.parent) < n && steps < n, "tensor {}: bad parent chain", i);
      const BufferLifetime& p = buffers[size_t(c.parent)];
      INGOT_ICHECK(c.offset_in_parent >= 0 && c.offset_in_parent + c.bytes <= p.bytes,
                   "tensor of {} bytes at {} does not fit in its parent of {} bytes", c.bytes,
                   c.offset_in_parent, p.bytes);
      offset[i] += c.offset_in_parent;
      at = size_t(c.parent);
    }
    root[i] = at;
  }
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> root;
  std::vector<int64_t> inner_offset;
  resolve_parents(buffers, root, inner_offset);
  // Blocks: the tensors without a parent, live over everything they enclose.
  std::vector<BufferLifetime> blocks = buffers;
  for (size_t i = 0; i < buffers.size(); ++i) {
    BufferLifetime& b = blocks[root[i]];
    b.first_use = std::min(b.first_use, buffers[i].first_use);
    b.last_use = std::max(b.last_use, buffers[i].last_use);
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < buffers.size(); ++i)
    if (root[i] == i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (blocks[a].first_use != blocks[b].first_use)
      return blocks[a].first_use < blocks[b].first_use;
    return blocks[a].bytes > blocks[b].bytes;
  });

  FreeList free;
  std::vector<size_t> live;  // placed tensors not yet released
  for (size_t id : order) {
    const BufferLifetime& t = blocks[id];
    // Release every block whose last use is before this tensor is written.
    std::erase_if(live, [&](size_t other) {
      if (blocks[other].last_use >= t.first_use) return false;
      free.release(plan.offsets[other], align_up(blocks[other].bytes));
      return true;
    });
    int64_t size = align_up(t.bytes);
    plan.unshared_bytes += size;
    if (size == 0) continue;  // offset 0, occupies nothing
    int64_t offset = free.take(size);
    if (offset < 0) {
      offset = free.take_tail(plan.total_bytes);
      if (offset < 0) offset = plan.total_bytes;
      plan.total_bytes = offset + size;
    }
    plan.offsets[id] = offset;
    live.push_back(id);
  }
  for (size_t i = 0; i < buffers.size(); ++i)
    if (root[i] != i) plan.offsets[i] = plan.offsets[root[i]] + inner_offset[i];
  return plan;
}

}  // namespace ingot::lower
