// Primitive split_block_iter: a loop bound to one iter var of a block is split in two, and so is
// the iter var: v (extent E) becomes vo (ceil(E / f)) and vi (f), v = vo * f + vi in the block's
// body, init and regions (indices simplified over the new domain), a tail masked by the
// block's predicate. Where split leaves the block's iteration space as it was, this changes it:
// after it, a tile of the inner loops is a tile of the block's own iterations, so a buffer laid
// out in panels of f (transform_layout) is read at affine indices and blockize / tensorize see
// the tile's rows or columns as a dimension of their own.
#include "schedule/primitives/common.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/region_analysis.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

class SplitBlockIterError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

namespace {

// Simplifies every buffer index over the analyzer's ranges (and the loops inside), and each term
// of a select's condition that uses the split iter var's halves (a conv's padding guard on its
// taps: floordiv(ko * 9 + ki, 3) % 3 becomes floordiv(ki, 3)).
class SimplifyIndices : public IRMutator {
 public:
  SimplifyIndices(arith::Analyzer ana, Var vo, Var vi)
      : ana_(std::move(ana)), vo_(std::move(vo)), vi_(std::move(vi)) {}
  Expr visit_Select(const Select* op, const Expr&) override {
    Expr cond = mutate(op->condition);
    if (uses_var(cond, vo_) || uses_var(cond, vi_)) {
      Expr terms;
      for (const Expr& t : conjuncts(cond)) {
        Expr term = uses_var(t, vo_) || uses_var(t, vi_) ? ana_.simplify(t) : t;
        terms = terms.defined() ? (terms && term) : term;
      }
      cond = terms;
    }
    return select(cond, mutate(op->true_value), mutate(op->false_value));
  }
  Expr visit_BufferLoad(const BufferLoad* op, const Expr&) override {
    return Buffer(op->buffer).load(simplified(op->indices));
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt&) override {
    return BufferStore::make(Buffer(op->buffer), mutate(op->value), simplified(op->indices));
  }
  Stmt visit_For(const For* op, const Stmt& s) override {
    ana_.bind(op->loop_var, op->min, op->extent);
    return IRMutator::visit_For(op, s);
  }

 private:
  std::vector<Expr> simplified(const std::vector<Expr>& idx) {
    std::vector<Expr> out;
    for (const Expr& i : idx) out.push_back(ana_.simplify(mutate(i)));
    return out;
  }
  arith::Analyzer ana_;
  Var vo_, vi_;
};

}  // namespace

// Preconditions:
// - the loop is serial, starts at 0, has a constant extent E and is one of the block's loops;
// - exactly one of the block's iter values is the loop variable itself, and no other iter value
//   or the predicate uses it; that iter var's domain is [0, E);
// - factor >= 1.
std::vector<LoopRV> Schedule::split_block_iter(BlockRV block, LoopRV loop, int64_t factor) {
  BlockInfo bi = block_info(*this, block);
  LoopInfo li = loop_info(*this, loop);
  const Block* b = bi.block;
  const For* f = li.node;
  std::string what =
      "split_block_iter block " + qname(b->name_hint) + " at loop " + qname(f->loop_var.name());
  int64_t extent = 0, start = -1;
  if (!is_const_int(f->extent, &extent) || !is_const_int(f->min, &start) || start != 0 ||
      f->kind != ForKind::kSerial)
    fail_schedule<SplitBlockIterError>(
        "cannot {}: the loop must be serial from 0 with a constant extent", what);
  if (factor < 1)
    fail_schedule<SplitBlockIterError>("cannot {}: factor {} is not positive", what, factor);
  bool around = false;
  for (const Stmt& l : bi.loops) around = around || l.get() == li.loop.get();
  if (!around)
    fail_schedule<SplitBlockIterError>("cannot {}: the loop is not around the block", what);
  int at = -1;
  for (size_t k = 0; k < bi.br->iter_values.size(); ++k) {
    const Expr& v = bi.br->iter_values[k];
    if (v.as<VarNode>() == f->loop_var.node()) {
      if (at >= 0)
        fail_schedule<SplitBlockIterError>("cannot {}: two iter vars are bound to the loop", what);
      at = int(k);
    } else if (uses_var(v, f->loop_var)) {
      fail_schedule<SplitBlockIterError>("cannot {}: iter value {} uses the loop", what,
                                         to_string(v));
    }
  }
  if (at < 0 || uses_var(bi.br->predicate, f->loop_var))
    fail_schedule<SplitBlockIterError>(
        "cannot {}: no iter var is bound to the loop alone (or the predicate uses it)", what);
  const IterVar& iv = b->iter_vars[size_t(at)];
  int64_t imin = -1, iext = 0;
  if (!is_const_int(iv.min, &imin) || imin != 0 || !is_const_int(iv.extent, &iext) ||
      iext != extent)
    fail_schedule<SplitBlockIterError>("cannot {}: iter var {} does not range over the loop", what,
                                       qname(iv.var.name()));
  // 1. The new loops and iter vars.
  const int64_t outer = (extent + factor - 1) / factor;
  DataType dt = f->loop_var.dtype();
  std::string lname = f->loop_var.name();
  Var lo(lname + "_0", dt), lin(lname + "_1", dt);
  Var vo(iv.var.name() + "o", iv.var.dtype()), vi(iv.var.name() + "i", iv.var.dtype());
  std::vector<IterVar> ivs;
  std::vector<Expr> values;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    if (int(k) != at) {
      ivs.push_back(b->iter_vars[k]);
      values.push_back(bi.br->iter_values[k]);
      continue;
    }
    ivs.push_back({vo, i64(0), i64(outer), iv.kind});
    ivs.push_back({vi, i64(0), i64(factor), iv.kind});
    values.push_back(lo);
    values.push_back(lin);
  }
  // 2. The block's body, init and regions in terms of vo * f + vi.
  arith::Analyzer ana;
  for (const IterVar& x : ivs) ana.bind(x.var, x.min, x.extent);
  VarMap map;
  map[iv.var.node()] = Expr(vo) * i64(factor) + vi;
  SimplifyIndices rw(ana, vo, vi);
  Stmt body = rw.mutate(substitute(b->body, map));
  Stmt init = b->init.defined() ? rw.mutate(substitute(b->init, map)) : Stmt();
  Stmt nb = reinfer_block_regions(Block::make(b->name_hint, ivs, b->reads, b->writes, body, init,
                                              b->alloc_buffers, b->annotations)
                                      .as<Block>());
  Expr pred = bi.br->predicate;
  if (outer * factor != extent) {
    Expr tail = Expr(lo) * make_const(dt, double(factor)) + lin < make_const(dt, double(extent));
    pred = is_const_int(pred) ? tail : Expr(pred && tail);
  }
  Stmt realize = BlockRealize::make(values, pred, nb);
  // 3. The loop becomes two around the same body, with the block's realize replaced.
  Stmt inner_body = replace_stmts(f->body, {{bi.realize.get(), realize}});
  Stmt nest = For::make(lin, make_const(dt, 0), make_const(dt, double(factor)), ForKind::kSerial,
                        inner_body);
  nest = For::make(lo, make_const(dt, 0), make_const(dt, double(outer)), ForKind::kSerial, nest);
  set_body(replace_stmts(func_.body, {{li.loop.get(), nest}}));
  std::vector<LoopRV> out = {new_loop_rv(lo), new_loop_rv(lin)};
  record({"split_block_iter",
          {rv_name(block), rv_name(loop)},
          {{"factor", factor}},
          {rv_name(out[0]), rv_name(out[1])},
          {}});
  return out;
}

}  // namespace ingot::schedule
