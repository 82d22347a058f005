// Static memory planning of the workspace arena: liveness-ordered greedy best-fit allocation
// with coalescing of freed blocks.
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

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers) {
  MemoryPlan plan;
  plan.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].first_use != buffers[b].first_use)
      return buffers[a].first_use < buffers[b].first_use;
    return buffers[a].bytes > buffers[b].bytes;
  });

  FreeList free;
  std::vector<size_t> live;  // placed tensors not yet released
  for (size_t id : order) {
    const BufferLifetime& t = buffers[id];
    INGOT_ICHECK(t.bytes >= 0 && t.first_use <= t.last_use, "bad lifetime [{}, {}] of {} bytes",
                 t.first_use, t.last_use, t.bytes);
    // Release every block whose last use is before this tensor is written.
    std::erase_if(live, [&](size_t other) {
      if (buffers[other].last_use >= t.first_use) return false;
      free.release(plan.offsets[other], align_up(buffers[other].bytes));
      return true;
    });
    int64_t size = align_up(t.bytes);
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
  return plan;
}

}  // namespace ingot::lower
