// Helpers shared by the rules that schedule block-form nests (see nest_utils.h).
#include "schedule/rules/nest_utils.h"

#include <algorithm>
#include <unordered_set>

#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "tir/analysis.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

// The loops of the block's own nest (those its iter vars are bound to), outermost first, or
// nullopt when they are not the innermost loops around it or one is not serial. Iter vars are
// bound to loops (in any order) or (a layout conversion's channel c = cb * B + l) to
// expressions of them; each of the innermost loops must be used by some binding.
std::optional<std::vector<LoopRV>> own_loops(Schedule& s, BlockRV b) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  INGOT_ICHECK(info.has_value(), "block {} vanished", s.name_of(b));
  for (const IterVar& iv : info->block->iter_vars)
    if (iv.kind != IterKind::kSpatial) return std::nullopt;
  std::unordered_set<const VarNode*> used;
  for (const Expr& v : info->br->iter_values)
    uses_var(v, [&](const VarNode* x) {
      used.insert(x);
      return false;
    });
  if (used.size() > info->loops.size()) return std::nullopt;
  std::vector<LoopRV> loops = s.get_loops(b);
  std::vector<LoopRV> own(loops.end() - std::ptrdiff_t(used.size()), loops.end());
  for (size_t k = 0; k < own.size(); ++k) {
    const For* f = info->loops[info->loops.size() - used.size() + k].as<For>();
    if (f->kind != ForKind::kSerial || !used.count(f->loop_var.node())) return std::nullopt;
  }
  return own;
}

std::optional<std::pair<std::vector<LoopRV>, std::vector<LoopRV>>> reduction_loops(Schedule& s,
                                                                                   BlockRV b) {
  auto info = find_block(s.func().body, s.name_of(b), nullptr);
  if (!info) return std::nullopt;
  const Block* blk = info->block;
  std::vector<LoopRV> loops = s.get_loops(b);
  const size_t n = blk->iter_vars.size();
  if (loops.size() != n || info->loops.size() != n) return std::nullopt;
  std::vector<LoopRV> spatial, reduce;
  for (size_t i = 0; i < n; ++i) {
    const IterVar& iv = blk->iter_vars[i];
    const For* f = info->loops[i].as<For>();
    int64_t lo = -1;
    if (f->kind != ForKind::kSerial || !info->br->iter_values[i].same_as(f->loop_var) ||
        !is_const_int(iv.min, &lo) || lo != 0 || !is_const_int(iv.extent))
      return std::nullopt;
    const bool red = iv.kind == IterKind::kReduce;
    if (!red && !reduce.empty()) return std::nullopt;  // a spatial var after a reduce one
    (red ? reduce : spatial).push_back(loops[i]);
  }
  if (spatial.empty() || reduce.empty()) return std::nullopt;
  return std::make_pair(spatial, reduce);
}

int64_t loop_extent_of(Schedule& s, LoopRV l) {
  auto info = find_loop(s.func().body, s.loop_var(l).node());
  int64_t e = 0;
  INGOT_ICHECK(info && is_const_int(info->node->extent, &e), "loop {}: no constant extent",
               s.loop_var(l).name());
  return e;
}

bool any_symbolic_extent(Schedule& s, const std::vector<LoopRV>& loops) {
  for (LoopRV l : loops) {
    auto info = find_loop(s.func().body, s.loop_var(l).node());
    if (info && !is_const_int(info->node->extent)) return true;
  }
  return false;
}

void parallelize_outer(Schedule& s, const std::vector<LoopRV>& loops, int limit, int def) {
  std::vector<int64_t> outer;
  for (int k = 0; k <= std::min(limit, kMaxFusedLoops); ++k) outer.push_back(k);
  int par = int(s.value(sample_choice(s, outer, def)));
  if (par == 0) return;
  std::vector<LoopRV> fused(loops.begin(), loops.begin() + par);
  s.parallel(par == 1 ? fused[0] : s.fuse(fused));
}

// The names of the top-level blocks, in order.
std::vector<std::string> top_level_block_names(const Schedule& s) {
  std::vector<std::string> names;
  for (const Stmt& r : child_block_realizes(s.func().body))
    names.push_back(r.as<BlockRealize>()->block_node()->name_hint);
  return names;
}

// Fusion's intermediates (buffers the root allocates) stored by a single elementwise block are
// inlined into their readers, in order: the fused kernel computes them where they are read. One
// that another block stores (a row reduction's result) is computed where it is stored: its one
// elementwise reader is reverse-inlined into that store.
void inline_intermediates(Schedule& s) {
  const Block* root = root_block(s.func().body);
  if (root == nullptr || root->alloc_buffers.empty()) return;
  std::vector<const BufferNode*> intermediates;
  for (const Buffer& b : root->alloc_buffers) intermediates.push_back(b.get());
  auto is_intermediate = [&](const BufferNode* b) {
    return std::count(intermediates.begin(), intermediates.end(), b) > 0;
  };
  auto is_elementwise = [](const Block* b) {
    bool elementwise = !b->init.defined();
    for (const IterVar& iv : b->iter_vars)
      elementwise = elementwise && iv.kind == IterKind::kSpatial;
    return elementwise;
  };
  std::vector<const BufferNode*> left;  // stored by something else than one elementwise store
  for (const std::string& name : top_level_block_names(s)) {
    auto info = find_block(s.func().body, name, nullptr);
    auto* store = info->block->body.as<BufferStore>();
    // (Not a reduction: a float16 product's float32 accumulator is the matmul rule's.)
    if (store != nullptr && is_elementwise(info->block) && is_intermediate(store->buffer.get())) {
      s.compute_inline(s.get_block(name));
      continue;
    }
    for (const BufferRegion& w : info->block->writes)
      if (is_intermediate(w.buffer.get()) && !info->block->init.defined())
        left.push_back(w.buffer.get());
  }
  for (const BufferNode* buf : left) {
    std::vector<std::string> readers;
    for (const std::string& name : top_level_block_names(s)) {
      auto info = find_block(s.func().body, name, nullptr);
      for (const BufferRegion& r : info->block->reads)
        if (r.buffer.get() == buf) readers.push_back(name);
    }
    if (readers.size() != 1) continue;
    auto info = find_block(s.func().body, readers[0], nullptr);
    if (info->block->body.as<BufferStore>() && is_elementwise(info->block))
      s.reverse_compute_inline(s.get_block(readers[0]));
  }
}

}  // namespace ingot::schedule
