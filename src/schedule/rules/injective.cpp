// The injective rule (see injective.h).
#include "schedule/rules/injective.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/contiguity.h"
#include "schedule/rules/lanes_reduction.h"
#include "schedule/rules/nest_utils.h"
#include "schedule/rules/row_reduction.h"
#include "tir/analysis.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

constexpr int64_t kMinChunk = 256;  // elements per parallel chunk of a flat nest

void schedule_flat(Schedule& s, LoopRV loop) {
  int64_t extent = loop_extent_of(s, loop);
  std::vector<int64_t> chunks;
  for (int64_t c = kMinChunk; c <= extent / 2; c *= 2)
    if (extent % c == 0) chunks.push_back(c);
  if (chunks.empty()) {
    s.vectorize(loop);
    return;
  }
  int64_t chunk = s.value(sample_choice(s, chunks, extent));
  if (chunk == extent) {
    s.vectorize(loop);
    return;
  }
  std::vector<LoopRV> parts = s.split(loop, {std::nullopt, chunk});
  s.parallel(parts[0]);
  s.vectorize(parts[1]);
}

// A single-store nest runs along its most contiguous loop: the loop whose variable makes the
// most accesses move by one element per step (contiguity_score) becomes the innermost when it
// beats the current innermost loop (a layout conversion that reads another blocked layout then
// runs along the channel lanes, contiguous on both sides). Nests whose iter vars are not each
// bound to one loop keep their order.
std::vector<LoopRV> contiguous_innermost(Schedule& s, BlockRV b, std::vector<LoopRV> loops) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  const Block* blk = info->block;
  auto score = [&](LoopRV l) -> std::optional<int> {
    const Var& lv = s.loop_var(l);
    for (size_t i = 0; i < blk->iter_vars.size(); ++i)
      if (info->br->iter_values[i].same_as(lv))
        return contiguity_score(blk->body, blk->iter_vars[i].var.node());
    return std::nullopt;
  };
  std::vector<int> scores;
  for (LoopRV l : loops) {
    auto sc = score(l);
    if (!sc) return loops;
    scores.push_back(*sc);
  }
  size_t best = loops.size() - 1;
  for (size_t k = 0; k + 1 < loops.size(); ++k)
    if (scores[k] > scores[best]) best = k;
  if (best + 1 == loops.size()) return loops;
  LoopRV inner = loops[best];
  loops.erase(loops.begin() + std::ptrdiff_t(best));
  loops.push_back(inner);
  s.reorder(loops);
  return loops;
}

// The loops to vectorize for the loop `loop` of block `b`: the loop itself, or, when the
// accesses are contiguous along it only in runs (a channel-blocked read X[.., c / B, .., c % B]),
// the inner loop of a split into runs of 16 lanes (else one vector) and the tail past the last
// whole run (a partition), so each strip is one vector access. A symbolic extent is never split.
std::vector<LoopRV> vector_strips(Schedule& s, BlockRV b, LoopRV loop, const CpuVectorIsa& isa) {
  if (any_symbolic_extent(s, {loop})) return {loop};  // (a lane loop over a symbolic extent)
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  const Block* blk = info->block;
  int64_t extent = loop_extent_of(s, loop);
  const VarNode* v = nullptr;
  for (size_t i = 0; i < blk->iter_vars.size(); ++i) {
    int64_t lo = -1;
    if (info->br->iter_values[i].same_as(s.loop_var(loop)) &&
        is_const_int(blk->iter_vars[i].min, &lo) && lo == 0)
      v = blk->iter_vars[i].var.node();
  }
  if (v == nullptr || contiguous_in_runs(blk->body, v, extent, 1)) return {loop};
  // One vector of the stored dtype (float32 unless the body is one store of another).
  auto* store = blk->body.as<BufferStore>();
  int bits = store != nullptr ? store->buffer->dtype.bits : 32;
  int64_t native = std::max<int64_t>(1, isa.vector_bits / bits);
  for (int64_t run : {kDefaultReductionLanes, native}) {
    if (run < 2 || run >= extent || !contiguous_in_runs(blk->body, v, extent, run)) continue;
    Strips strips = split_into_strips(s, loop, extent, run);
    if (strips.tail) return {strips.inner, *strips.tail};
    return {strips.inner};
  }
  return {loop};
}

void schedule_nest(Schedule& s, BlockRV b, std::vector<LoopRV> loops, const CpuVectorIsa& isa) {
  loops = contiguous_innermost(s, b, std::move(loops));
  int n = int(loops.size());
  std::vector<int64_t> inner;
  for (int k = 1; k <= std::min(n, kMaxFusedLoops); ++k) inner.push_back(k);
  int vec = int(s.value(sample_choice(s, inner, 1)));
  parallelize_outer(s, loops, n - vec, std::min(1, n - vec));
  if (vec > 1) {
    s.vectorize(s.fuse(std::vector<LoopRV>(loops.end() - vec, loops.end())));
    return;
  }
  for (LoopRV l : vector_strips(s, b, loops.back(), isa)) s.vectorize(l);
}

// The lane loops inside a row (compute/common.h lane_loop: spatial blocks "lanes" over one
// serial loop of independent stores along a contiguous run) are vectorized: whole, or, where
// the accesses are contiguous only along runs (a channel-blocked input X[.., c / B, .., c % B]),
// in strips of one run (16 lanes, else one vector) that are one vector access each.
void vectorize_lanes(Schedule& s, const std::string& row, const CpuVectorIsa& isa) {
  std::vector<std::string> names;
  for (BlockRV c : s.get_child_blocks(s.get_block(row)))
    if (s.name_of(c).starts_with("lanes")) names.push_back(s.name_of(c));
  for (const std::string& name : names) {
    BlockRV b = s.get_block(name);
    auto loops = own_loops(s, b);
    if (!loops || loops->size() != 1) continue;
    for (LoopRV l : vector_strips(s, b, loops->front(), isa)) s.vectorize(l);
  }
}

}  // namespace

// A nest over symbolic extents (docs/dynamic-shapes.md) has no design space yet: its outermost
// loop runs in parallel and, for one store, its innermost loop is left to LLVM's loop vectorizer
// (which adds its own remainder loop); a row's lane loops likewise. Its loops are never split
// or fused, so no extent has to be constant.
void schedule_symbolic(Schedule& s, const std::string& name, const std::vector<LoopRV>& loops,
                       bool one_store, const CpuVectorIsa& isa) {
  if (!loops.empty() && (!one_store || loops.size() > 1)) s.parallel(loops.front());
  if (one_store && !loops.empty()) s.vectorize(loops.back());
  if (one_store) return;
  std::vector<std::string> lanes;
  for (BlockRV c : s.get_child_blocks(s.get_block(name)))
    if (s.name_of(c).starts_with("lanes")) lanes.push_back(s.name_of(c));
  for (const std::string& lane : lanes) {
    auto own = own_loops(s, s.get_block(lane));
    if (own && own->size() == 1) s.vectorize(own->front());
  }
  schedule_row_reductions(s, name, isa);
}

// Whether block `name` reduces every one of its iter vars (a whole-tensor reduction to one
// accumulator at the kernel's root).
static bool reduces_everything(const Schedule& s, const std::string& name) {
  const Block* blk = find_block(s.func().body, name, nullptr)->block;
  if (blk->iter_vars.empty()) return false;
  for (const IterVar& iv : blk->iter_vars)
    if (iv.kind != IterKind::kReduce) return false;
  return true;
}

void schedule_injective_block(Schedule& s, const std::string& name, const CpuVectorIsa& isa) {
  if (reduces_everything(s, name) && schedule_reduction_lanes(s, name, isa)) return;
  BlockRV b = s.get_block(name);
  auto loops = own_loops(s, b);
  if (!loops) {
    schedule_lanes_reduction(s, name);  // (when it is one)
    return;
  }
  bool one_store = find_block(s.func().body, name, nullptr)->block->body.as<BufferStore>();
  if (any_symbolic_extent(s, *loops)) {
    schedule_symbolic(s, name, *loops, one_store, isa);
  } else if (!one_store) {
    if (!loops->empty()) parallelize_outer(s, *loops, int(loops->size()), 1);
    vectorize_lanes(s, name, isa);
    schedule_row_reductions(s, name, isa);
  } else if (loops->size() == 1) {
    schedule_flat(s, loops->front());
  } else if (loops->size() > 1) {
    schedule_nest(s, b, *loops, isa);
  }
}

void schedule_injective(Schedule& s, const CpuVectorIsa& isa) {
  inline_intermediates(s);
  for (const std::string& name : top_level_block_names(s)) schedule_injective_block(s, name, isa);
}

}  // namespace ingot::schedule
