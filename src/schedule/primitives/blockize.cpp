// Primitive blockize: the loops from a given loop down to the one block under them become the
// body of a new outer block "<block>_o" whose iter vars are the tile offsets of the inner block,
// so that a whole tile (e.g. an MR x NR x KC register tile) can be scheduled and tensorized as
// one unit.
#include <optional>

#include "schedule/primitives/common.h"
#include "tir/analysis.h"
#include "tir/arith/linear_form.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

class BlockizeError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// A binding split into offset + inner loop variable (either part may be absent).
struct SplitBinding {
  Expr offset;  // free of the inner loop variables; undefined when the binding is just `l`
  Var inner;    // an inner loop variable; undefined when the binding is just `offset`
};

bool is_inner(const Expr& e, const std::vector<const For*>& loops) {
  auto* v = e.as<VarNode>();
  if (!v) return false;
  for (const For* f : loops)
    if (f->loop_var.node() == v) return true;
  return false;
}

bool inner_var(const VarNode* v, const std::vector<const For*>& loops) {
  for (const For* f : loops)
    if (f->loop_var.node() == v) return true;
  return false;
}

bool uses_inner(const Expr& e, const std::vector<const For*>& loops) {
  return uses_var(e, [&](const VarNode* v) { return inner_var(v, loops); });
}

}  // namespace

// Preconditions:
// - under the loop is a chain of loops (each body is the next loop) ending in one BlockRealize;
// - those loops (the loop included) are serial, start at 0 and have constant extents;
// - every binding of the block is `o`, `l` or `o + l`, where `l` is one of those loops, used by
//   no other binding, and `o` does not use them.
// The inner block keeps its iter vars, init and predicate; its bindings become `vo + l`.
BlockRV Schedule::blockize(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  std::string lname = li.node->loop_var.name();
  // 1. The loop chain and the block at its bottom.
  std::vector<const For*> loops;
  Stmt cur = li.loop;
  while (auto* f = cur.as<For>()) {
    int64_t m = -1;
    if (f->kind != ForKind::kSerial || !is_const_int(f->min, &m) || m != 0 ||
        !is_const_int(f->extent))
      fail_schedule<BlockizeError>(
          "cannot blockize at loop {}: loop {} is not a serial loop from 0 with a constant "
          "extent",
          qname(lname), qname(f->loop_var.name()));
    loops.push_back(f);
    cur = f->body;
  }
  auto* br = cur.as<BlockRealize>();
  if (!br)
    fail_schedule<BlockizeError>(
        "cannot blockize at loop {}: its body is not a chain of loops around one block",
        qname(lname));
  const Block* b = br->block_node();
  std::string bname = b->name_hint;
  // 2. Split every binding into offset + inner loop variable.
  std::vector<SplitBinding> parts;
  std::vector<const VarNode*> used;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const Expr& v = br->iter_values[i];
    SplitBinding sb;
    if (is_inner(v, loops)) {
      sb.inner = to_var(v);
    } else if (auto* a = v.as<Add>(); a && is_inner(a->b, loops) && !uses_inner(a->a, loops)) {
      sb.offset = a->a, sb.inner = to_var(a->b);
    } else if (auto* a2 = v.as<Add>(); a2 && is_inner(a2->a, loops) && !uses_inner(a2->b, loops)) {
      sb.offset = a2->b, sb.inner = to_var(a2->a);
    } else if (!uses_inner(v, loops)) {
      sb.offset = v;
    } else if (auto lv = arith::var_plus_offset(
                   v, [&](const VarNode* x) { return inner_var(x, loops); })) {
      sb.offset = lv->offset, sb.inner = lv->var;  // e.g. 1 + (o * 6 + l): partition, split
    } else {
      fail_schedule<BlockizeError>(
          "cannot blockize block {} at loop {}: the binding {} of iter var {} is not "
          "offset + loop variable",
          qname(bname), qname(lname), to_string(v), qname(b->iter_vars[i].var.name()));
    }
    if (sb.inner.defined()) {
      for (const VarNode* u : used)
        if (u == sb.inner.node())
          fail_schedule<BlockizeError>(
              "cannot blockize block {} at loop {}: loop {} feeds several iter vars", qname(bname),
              qname(lname), qname(sb.inner.name()));
      used.push_back(sb.inner.node());
    }
    parts.push_back(sb);
  }
  // 3. Outer iter vars: one per binding with an offset, bound to it, over the iter var domain.
  std::vector<IterVar> outer_ivs;
  std::vector<Expr> outer_values, inner_values;
  for (size_t i = 0; i < parts.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    Expr inner;
    if (parts[i].offset.defined()) {
      Var vo(iv.var.name() + "_o", iv.var.dtype());
      outer_ivs.push_back({vo, iv.min, iv.extent, iv.kind});
      outer_values.push_back(parts[i].offset);
      inner = parts[i].inner.defined() ? Expr(vo) + parts[i].inner : Expr(vo);
    } else {
      inner = parts[i].inner;
    }
    inner_values.push_back(inner);
  }
  // 4. The inner realize with the new bindings, the loop chain around it, the outer block.
  Stmt body = BlockRealize::make(inner_values, br->predicate, br->block);
  for (size_t k = loops.size(); k-- > 0;) {
    const For* f = loops[k];
    body = For::make(f->loop_var, f->min, f->extent, f->kind, body, f->thread_tag);
  }
  std::string oname = unique_block_name(func_.body, bname + "_o");
  Stmt outer = BlockRealize::make(outer_values, IntImm::make(DataType::boolean(), 1),
                                  make_block(oname, outer_ivs, body));
  set_body(replace_stmts(func_.body, {{li.loop.get(), outer}}));
  // 5. Record.
  BlockRV out = new_block_rv(oname);
  record({"blockize", {rv_name(loop)}, nlohmann::json::object(), {rv_name(out)}, {}});
  return out;
}

}  // namespace ingot::schedule
