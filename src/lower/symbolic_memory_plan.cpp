// Slot planning over symbolic sizes (see symbolic_memory_plan.h).
#include "lower/symbolic_memory_plan.h"

#include <algorithm>

#include "lower/memory_plan.h"
#include "support/error.h"

namespace ingot::lower {

namespace {

graph::SymExpr align_up(const graph::SymExpr& bytes) {
  if (bytes.is_constant()) return lower::align_up(*bytes.as_constant());
  return graph::SymExpr::ceildiv(bytes, kArenaAlignment) * kArenaAlignment;
}

struct Slot {
  graph::SymExpr bytes = 0;
  int64_t hint = 0;
  int occupant = -1;  // the root buffer in it now
};

}  // namespace

SymbolicPlan plan_memory_symbolic(const std::vector<SymbolicBuffer>& buffers) {
  const size_t n = buffers.size();
  SymbolicPlan plan;
  plan.offsets.assign(n, 0);
  plan.slots.assign(n, -1);
  // Roots and offsets inside them; a root is live over everything it encloses.
  std::vector<size_t> root(n);
  std::vector<int64_t> inner(n, 0);
  std::vector<int> first(n), last(n);
  for (size_t i = 0; i < n; ++i) {
    first[i] = buffers[i].first_use;
    last[i] = buffers[i].last_use;
  }
  for (size_t i = 0; i < n; ++i) {
    size_t at = i;
    for (size_t steps = 0; buffers[at].parent >= 0; ++steps) {
      INGOT_ICHECK(size_t(buffers[at].parent) < n && steps < n, "buffer {}: bad parent chain", i);
      inner[i] += buffers[at].offset_in_parent;
      at = size_t(buffers[at].parent);
    }
    root[i] = at;
    first[at] = std::min(first[at], buffers[i].first_use);
    last[at] = std::max(last[at], buffers[i].last_use);
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i)
    if (root[i] == i) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (first[a] != first[b]) return first[a] < first[b];
    return buffers[a].hint_bytes > buffers[b].hint_bytes;
  });
  std::vector<Slot> slots;
  for (size_t id : order) {
    const int64_t hint = lower::align_up(buffers[id].hint_bytes);
    plan.unshared_hint_bytes += hint;
    if (hint == 0 && buffers[id].bytes.is_constant()) continue;  // takes no memory
    for (Slot& s : slots)
      if (s.occupant >= 0 && last[size_t(s.occupant)] < first[id]) s.occupant = -1;
    Slot* best = nullptr;  // the smallest free slot that fits, else the largest free one
    for (Slot& s : slots) {
      if (s.occupant >= 0) continue;
      bool fits = s.hint >= hint, best_fits = best != nullptr && best->hint >= hint;
      if (best == nullptr || (fits && (!best_fits || s.hint < best->hint)) ||
          (!fits && !best_fits && s.hint > best->hint))
        best = &s;
    }
    if (best == nullptr) best = &slots.emplace_back();
    graph::SymExpr size = align_up(buffers[id].bytes);
    if (best->hint == 0 && best->occupant < 0 && best->bytes == graph::SymExpr(0)) {
      best->bytes = size;
    } else if (!(best->bytes == size)) {
      best->bytes = best->bytes.is_constant() && size.is_constant()
                        ? graph::SymExpr(std::max(*best->bytes.as_constant(), *size.as_constant()))
                        : graph::SymExpr::max(best->bytes, size);
    }
    best->hint = std::max(best->hint, hint);
    best->occupant = int(id);
    plan.slots[id] = int(best - slots.data());
  }
  std::vector<graph::SymExpr> slot_offset;
  for (const Slot& s : slots) {
    slot_offset.push_back(plan.total_bytes);
    plan.total_bytes = plan.total_bytes + s.bytes;
  }
  for (size_t i = 0; i < n; ++i) {
    int slot = plan.slots[root[i]];
    plan.slots[i] = slot;
    if (slot >= 0) plan.offsets[i] = slot_offset[size_t(slot)] + graph::SymExpr(inner[i]);
  }
  return plan;
}

}  // namespace ingot::lower
