// Shared by compute_at and reverse_compute_at: the loop nest that realizes a block over a
// required region of one buffer, and the region a set of blocks needs under a loop.
#include "schedule/primitives/region_nest.h"

#include <algorithm>

#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

VarDomain loops_inside(const Stmt& loop) {
  struct C : IRVisitor {
    VarDomain dom;
    void visit_For(const For* op, const Stmt& s) override {
      dom[op->loop_var.node()] = Range{op->min, op->extent};
      IRVisitor::visit_For(op, s);
    }
  } c;
  c.visit(loop.as<For>()->body);
  return c.dom;
}

arith::Analyzer outer_analyzer(const LoopInfo& li) {
  arith::Analyzer a;
  for (const Stmt& s : li.outer)
    a.bind(s.as<For>()->loop_var, s.as<For>()->min, s.as<For>()->extent);
  a.bind(li.node->loop_var, li.node->min, li.node->extent);
  return a;
}

std::optional<std::vector<IntervalSet>> required_region(const std::vector<Stmt>& realizes,
                                                        const BufferNode* buf, bool writes,
                                                        const VarDomain& dom) {
  std::optional<std::vector<IntervalSet>> out;
  for (const Stmt& s : realizes) {
    auto* br = s.as<BlockRealize>();
    const Block* b = br->block_node();
    VarMap bind;
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      bind[b->iter_vars[i].var.node()] = br->iter_values[i];
    for (const BufferRegion& r : writes ? b->writes : b->reads) {
      if (r.buffer.get() != buf) continue;
      std::vector<IntervalSet> dims;
      for (size_t d = 0; d < r.region.size(); ++d) {
        auto lo = relax(substitute(r.region[d].min, bind), dom);
        auto hi = relax(substitute(r.region[d].min + r.region[d].extent - 1, bind), dom);
        if (lo && hi) {
          dims.push_back({lo->min, hi->max});
        } else {
          dims.push_back({i64(0), r.buffer->shape[d] - 1});
        }
      }
      if (!out) {
        out = dims;
        continue;
      }
      for (size_t d = 0; d < dims.size(); ++d)
        (*out)[d] = {arith::simplify(min((*out)[d].min, dims[d].min)),
                     arith::simplify(max((*out)[d].max, dims[d].max))};
    }
  }
  return out;
}

Stmt region_nest(const BlockInfo& bi, const BufferRegion& access,
                 const std::vector<IntervalSet>& region, const arith::Analyzer& ana,
                 const std::string& what) {
  const Block* b = bi.block;
  int64_t one = 0;
  if (!is_const_int(bi.br->predicate, &one) || !one)
    fail_schedule<ComputeLocationError>("cannot {}: block {} has a predicate", what,
                                        qname(b->name_hint));
  // 1. Which dimension of the buffer each iter var walks.
  std::unordered_map<const VarNode*, size_t> dim_of;
  for (size_t d = 0; d < access.region.size(); ++d) {
    auto* v = access.region[d].min.as<VarNode>();
    int64_t ext = 0;
    // A dimension at a constant index (the 0 of a dimension of extent 1) is walked by no iter
    // var: every instance of the block accesses that index.
    if (is_const_int(access.region[d].min) && is_const_int(access.region[d].extent, &ext) &&
        ext == 1)
      continue;
    if (!v || !is_const_int(access.region[d].extent, &ext) || ext != 1)
      fail_schedule<ComputeLocationError>(
          "cannot {}: block {} does not access {} at a single iter var in dimension {}", what,
          qname(b->name_hint), qname(access.buffer->name), d);
    dim_of[v] = d;
  }
  // 2. One loop per iter var: the region for mapped ones, the whole domain for the others.
  std::vector<Var> loops;
  std::vector<Expr> extents, values;
  Expr pred;
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    const IterVar& iv = b->iter_vars[i];
    Var ax("ax" + std::to_string(i), iv.var.dtype());
    Expr lo = iv.min, ext = iv.extent;
    if (auto it = dim_of.find(iv.var.node()); it != dim_of.end()) {
      IntervalSet r = region[it->second];
      // A constant region past the block's constant domain (the producer's padded tiles or
      // panels: 40 panels of 24 columns over 768) is clipped to it: the instances past it are
      // predicated off anyway, and the nest then walks the domain exactly, with no mask.
      int64_t r_lo = 0, r_hi = 0, d_lo = 0, d_ext = 0;
      if (is_const_int(arith::simplify(r.min, ana), &r_lo) &&
          is_const_int(arith::simplify(r.max, ana), &r_hi) && is_const_int(iv.min, &d_lo) &&
          is_const_int(iv.extent, &d_ext) &&
          std::max(r_lo, d_lo) <= std::min(r_hi, d_lo + d_ext - 1))
        r = {make_const(iv.var.dtype(), double(std::max(r_lo, d_lo))),
             make_const(iv.var.dtype(), double(std::min(r_hi, d_lo + d_ext - 1)))};
      lo = arith::simplify(r.min, ana);
      ext = arith::simplify(r.max - r.min + 1, ana);
      if (!is_const_int(ext)) {
        int64_t hi = ana.bound_of(ext).max_value;
        if (hi == arith::ConstIntBound::kPosInf)
          fail_schedule<ComputeLocationError>(
              "cannot {}: the extent {} of block {} along {} is unbounded", what, to_string(ext),
              qname(b->name_hint), qname(iv.var.name()));
        Expr c = lo + ax <= r.max;
        pred = pred.defined() ? (pred && c) : c;
        ext = make_const(ext.dtype(), double(hi));
      }
      Expr end = arith::simplify(iv.min + iv.extent);
      if (!ana.can_prove(lo >= iv.min)) {
        Expr c = lo + ax >= iv.min;
        pred = pred.defined() ? (pred && c) : c;
      }
      if (!ana.can_prove(r.max < end)) {
        Expr c = lo + ax < end;
        pred = pred.defined() ? (pred && c) : c;
      }
    }
    loops.push_back(ax);
    extents.push_back(ext);
    int64_t zero = 0;
    values.push_back(is_const_int(lo, &zero) && zero == 0 ? Expr(ax) : lo + ax);
  }
  // 3. The realize inside the nest, innermost loop first.
  Stmt s = BlockRealize::make(values, pred.defined() ? pred : IntImm::make(DataType::boolean(), 1),
                              bi.br->block);
  for (size_t k = loops.size(); k-- > 0;)
    s = For::make(loops[k], make_const(loops[k].dtype(), 0), extents[k], ForKind::kSerial, s);
  return s;
}

}  // namespace ingot::schedule
