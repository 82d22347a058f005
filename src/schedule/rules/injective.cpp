// The injective rule (see injective.h).
#include "schedule/rules/injective.h"

#include <algorithm>
#include <string>
#include <vector>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/row_reduction.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

constexpr int64_t kMinChunk = 256;  // elements per parallel chunk of a flat nest
constexpr int kMaxFusedLoops = 3;   // loops fused into the parallel or the vectorized loop

// The loops of the block's own nest (those its iter vars are bound to), outermost first, or
// nullopt when they are not the innermost loops around it or one is not serial.
std::optional<std::vector<LoopRV>> own_loops(Schedule& s, BlockRV b) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  INGOT_ICHECK(info.has_value(), "injective rule: block {} vanished", s.name_of(b));
  for (const IterVar& iv : info->block->iter_vars)
    if (iv.kind != IterKind::kSpatial) return std::nullopt;
  size_t bound = 0;
  for (const Expr& v : info->br->iter_values)
    if (v.as<VarNode>() != nullptr) ++bound;
  if (bound != info->br->iter_values.size() || bound > info->loops.size()) return std::nullopt;
  std::vector<LoopRV> loops = s.get_loops(b);
  std::vector<LoopRV> own(loops.end() - std::ptrdiff_t(bound), loops.end());
  for (size_t k = 0; k < own.size(); ++k) {
    const For* f = info->loops[info->loops.size() - bound + k].as<For>();
    if (f->kind != ForKind::kSerial || !info->br->iter_values[k].same_as(f->loop_var))
      return std::nullopt;
  }
  return own;
}

int64_t extent_of(Schedule& s, LoopRV l) {
  auto info = find_loop(s.func().body, s.loop_var(l).node());
  int64_t e = 0;
  INGOT_ICHECK(info && is_const_int(info->node->extent, &e), "injective rule: loop {} extent",
               s.loop_var(l).name());
  return e;
}

void schedule_flat(Schedule& s, LoopRV loop) {
  int64_t extent = extent_of(s, loop);
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

// Outer loops fused into the parallel loop: 0 (none) to 3, `def` by default.
void parallelize_outer(Schedule& s, const std::vector<LoopRV>& loops, int limit, int def) {
  std::vector<int64_t> outer;
  for (int k = 0; k <= std::min(limit, kMaxFusedLoops); ++k) outer.push_back(k);
  int par = int(s.value(sample_choice(s, outer, def)));
  if (par == 0) return;
  std::vector<LoopRV> fused(loops.begin(), loops.begin() + par);
  s.parallel(par == 1 ? fused[0] : s.fuse(fused));
}

void schedule_nest(Schedule& s, std::vector<LoopRV> loops) {
  int n = int(loops.size());
  std::vector<int64_t> inner;
  for (int k = 1; k <= std::min(n, kMaxFusedLoops); ++k) inner.push_back(k);
  int vec = int(s.value(sample_choice(s, inner, 1)));
  parallelize_outer(s, loops, n - vec, std::min(1, n - vec));
  std::vector<LoopRV> row(loops.end() - vec, loops.end());
  s.vectorize(vec == 1 ? row[0] : s.fuse(row));
}

// The names of the top-level blocks, in order.
std::vector<std::string> block_names(const Schedule& s) {
  std::vector<std::string> names;
  for (const Stmt& r : child_block_realizes(s.func().body))
    names.push_back(r.as<BlockRealize>()->block_node()->name_hint);
  return names;
}

// Fusion's intermediates (buffers the root allocates) stored by a single elementwise block are
// inlined into their readers, in order: the fused kernel computes them where they are read.
void inline_intermediates(Schedule& s) {
  const Block* root = root_block(s.func().body);
  if (root == nullptr || root->alloc_buffers.empty()) return;
  std::vector<const BufferNode*> intermediates;
  for (const Buffer& b : root->alloc_buffers) intermediates.push_back(b.get());
  for (const std::string& name : block_names(s)) {
    auto info = find_block(s.func().body, name, nullptr);
    auto* store = info->block->body.as<BufferStore>();
    if (store != nullptr &&
        std::count(intermediates.begin(), intermediates.end(), store->buffer.get()) > 0)
      s.compute_inline(s.get_block(name));
  }
}

// The lane loops inside a row (compute/common.h lane_loop: spatial blocks "lanes" over one
// serial loop of independent stores along a contiguous run) are vectorized.
void vectorize_lanes(Schedule& s, const std::string& row) {
  std::vector<std::string> names;
  for (BlockRV c : s.get_child_blocks(s.get_block(row)))
    if (s.name_of(c).starts_with("lanes")) names.push_back(s.name_of(c));
  for (const std::string& name : names) {
    auto loops = own_loops(s, s.get_block(name));
    if (loops && loops->size() == 1) s.vectorize(loops->front());
  }
}

}  // namespace

void schedule_injective(Schedule& s, const CpuVectorIsa& isa) {
  inline_intermediates(s);
  for (const std::string& name : block_names(s)) {
    BlockRV b = s.get_block(name);
    auto loops = own_loops(s, b);
    if (!loops) continue;
    bool one_store = find_block(s.func().body, name, nullptr)->block->body.as<BufferStore>();
    if (!one_store) {
      if (!loops->empty()) parallelize_outer(s, *loops, int(loops->size()), 1);
      vectorize_lanes(s, name);
      schedule_row_reductions(s, name, isa);
    } else if (loops->empty()) {
      continue;
    } else if (loops->size() == 1) {
      schedule_flat(s, loops->front());
    } else {
      schedule_nest(s, *loops);
    }
  }
}

}  // namespace ingot::schedule
