// Primitive decompose_reduction: moves a reduction block's init into its own block "<name>_init",
// placed just before the given loop, inside copies of the loops under it that the init needs.
#include <unordered_set>

#include "schedule/primitives/common.h"
#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class DecomposeReductionError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions:
// - the block has an init;
// - the loop is one of the loops around the block;
// - no loop under it (down to the block) is used by both a spatial and a reduce binding, and
//   no conjunct of the block predicate mixes spatial and reduction-only loops under it, except
//   where its spatial loops each bind a spatial iter var whole (rfactor's lane loop over a
//   split's tail: the conjunct masks reduction steps, and the init drops it).
BlockRV Schedule::decompose_reduction(BlockRV block, LoopRV loop) {
  BlockInfo bi = block_info(*this, block);
  LoopInfo li = loop_info(*this, loop);
  const Block* b = bi.block;
  std::string bname = b->name_hint, lname = li.node->loop_var.name();
  // 1. Check the block and the loop's position.
  if (!b->init.defined())
    fail_schedule<DecomposeReductionError>(
        "cannot decompose block {}: it has no init (not a reduction)", qname(bname));
  size_t pos = bi.loops.size();
  for (size_t k = 0; k < bi.loops.size(); ++k)
    if (bi.loops[k].same_as(li.loop)) pos = k;
  if (pos == bi.loops.size())
    fail_schedule<DecomposeReductionError>(
        "cannot decompose block {} at loop {}: the loop is not around the block", qname(bname),
        qname(lname));
  // 2. The loops under `loop` used by spatial bindings are copied for the init block.
  std::unordered_set<const VarNode*> spatial_vars, reduce_vars;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    auto& set = b->iter_vars[i].kind == IterKind::kSpatial ? spatial_vars : reduce_vars;
    for (const Var& v : free_vars(bi.br->iter_values[i])) set.insert(v.node());
  }
  VarMap loop_map;
  std::vector<const For*> copied;
  for (size_t k = pos; k < bi.loops.size(); ++k) {
    const For* f = bi.loops[k].as<For>();
    bool s = spatial_vars.count(f->loop_var.node()), r = reduce_vars.count(f->loop_var.node());
    if (s && r)
      fail_schedule<DecomposeReductionError>(
          "cannot decompose block {}: loop {} feeds both spatial and reduction iter vars",
          qname(bname), qname(f->loop_var.name()));
    if (!s) continue;
    copied.push_back(f);
    loop_map[f->loop_var.node()] = Var(f->loop_var.name() + "_init", f->loop_var.dtype());
  }
  // 3. The init block: fresh spatial iter vars, bindings over the copied loops.
  std::vector<IterVar> ivs;
  std::vector<Expr> values;
  VarMap iv_map;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    if (iv.kind != IterKind::kSpatial) continue;
    Var nv(iv.var.name(), iv.var.dtype());
    iv_map[iv.var.node()] = nv;
    ivs.push_back({nv, iv.min, iv.extent, IterKind::kSpatial});
    values.push_back(substitute(bi.br->iter_values[i], loop_map));
  }
  // The predicate: conjuncts over reduction-only loops mask the reduction tail and are dropped;
  // a conjunct mixing them with spatial loops has no init equivalent.
  std::vector<Expr> conjuncts, stack{bi.br->predicate};
  while (!stack.empty()) {
    Expr e = stack.back();
    stack.pop_back();
    if (auto* a = e.as<And>()) {
      stack.push_back(a->b);
      stack.push_back(a->a);
    } else {
      conjuncts.push_back(e);
    }
  }
  auto spatial_loops_are_whole_bindings = [&](const Expr& c) {
    for (size_t k = pos; k < bi.loops.size(); ++k) {
      const For* f = bi.loops[k].as<For>();
      if (!loop_map.count(f->loop_var.node()) || !uses_var(c, f->loop_var)) continue;
      bool whole = false;
      for (size_t i = 0; i < b->iter_vars.size(); ++i)
        whole = whole || (b->iter_vars[i].kind == IterKind::kSpatial &&
                          bi.br->iter_values[i].as<VarNode>() == f->loop_var.node() &&
                          structural_equal(b->iter_vars[i].min, f->min) &&
                          structural_equal(b->iter_vars[i].extent, f->extent));
      if (!whole) return false;
    }
    return true;
  };
  Expr pred;
  for (const Expr& c : conjuncts) {
    bool reduce_only = false, spatial = false;
    for (size_t k = pos; k < bi.loops.size(); ++k) {
      const Var& lv = bi.loops[k].as<For>()->loop_var;
      if (!uses_var(c, lv)) continue;
      (loop_map.count(lv.node()) ? spatial : reduce_only) = true;
    }
    // A conjunct mixing them, where each spatial loop it uses is the whole binding of a spatial
    // iter var over the loop's range (rfactor's lane loop, ko * T + ki < n on a split tail),
    // masks the reduction's steps only: every spatial point still gets its init.
    if (reduce_only && spatial && spatial_loops_are_whole_bindings(c)) continue;
    if (reduce_only && spatial)
      fail_schedule<DecomposeReductionError>(
          "cannot decompose block {}: its predicate {} mixes spatial and reduction loops",
          qname(bname), to_string(c));
    if (reduce_only) continue;
    Expr x = substitute(c, loop_map);
    pred = pred.defined() ? (pred && x) : x;
  }
  if (!pred.defined()) pred = IntImm::make(DataType::boolean(), 1);
  std::string init_name = unique_block_name(func_.body, bname + "_init");
  Stmt init_block = make_block(init_name, ivs, substitute(b->init, iv_map));
  Stmt init = BlockRealize::make(values, pred, init_block);
  for (size_t k = copied.size(); k-- > 0;) {
    const For* f = copied[k];
    init = For::make(to_var(loop_map.at(f->loop_var.node())), f->min, f->extent, f->kind, init,
                     f->thread_tag);
  }
  // 4. The update block loses its init; the init nest goes right before `loop`.
  Stmt update = Block::make(b->name_hint, b->iter_vars, b->reads, b->writes, b->body, Stmt(),
                            b->alloc_buffers, b->annotations);
  Stmt realize = BlockRealize::make(bi.br->iter_values, bi.br->predicate, update);
  Stmt new_loop = replace_stmts(li.loop, {{bi.realize.get(), realize}});
  set_body(replace_stmts(func_.body, {{li.loop.get(), SeqStmt::make({init, new_loop})}}));
  // 5. Record.
  BlockRV out = new_block_rv(init_name);
  record({"decompose_reduction",
          {rv_name(block), rv_name(loop)},
          nlohmann::json::object(),
          {rv_name(out)},
          {}});
  return out;
}

}  // namespace ingot::schedule
