// Region inference: a visitor collecting buffer accesses of a block body, relaxing indices over
// the loops inside the body with a symbolic interval analysis, then unioning per buffer.
#include "tir/region_analysis.h"

#include <unordered_set>

#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

bool uses_dom(const Expr& e, const VarDomain& dom) {
  return uses_var(e, [&](const VarNode* v) { return dom.count(v) > 0; });
}

std::optional<IntervalSet> relax_impl(const Expr& e, const VarDomain& dom) {
  if (!uses_dom(e, dom)) return IntervalSet{e, e};
  if (auto* v = e.as<VarNode>()) {
    const Range& r = dom.at(v);
    return IntervalSet{r.min, r.min + r.extent - 1};
  }
  auto both = [&](const Expr& a,
                  const Expr& b) -> std::optional<std::pair<IntervalSet, IntervalSet>> {
    auto x = relax_impl(a, dom), y = relax_impl(b, dom);
    if (!x || !y) return std::nullopt;
    return std::make_pair(*x, *y);
  };
  int64_t c = 0;
  if (auto* n = e.as<Add>()) {
    auto r = both(n->a, n->b);
    if (!r) return std::nullopt;
    return IntervalSet{r->first.min + r->second.min, r->first.max + r->second.max};
  }
  if (auto* n = e.as<Sub>()) {
    auto r = both(n->a, n->b);
    if (!r) return std::nullopt;
    return IntervalSet{r->first.min - r->second.max, r->first.max - r->second.min};
  }
  if (auto* n = e.as<Mul>()) {
    Expr x = n->a, k = n->b;
    if (is_const_int(x, &c)) std::swap(x, k);
    if (!is_const_int(k, &c)) return std::nullopt;
    auto r = relax_impl(x, dom);
    if (!r) return std::nullopt;
    if (c >= 0) return IntervalSet{r->min * k, r->max * k};
    return IntervalSet{r->max * k, r->min * k};
  }
  if (auto* n = e.as<FloorDiv>()) {
    if (!is_const_int(n->b, &c) || c <= 0) return std::nullopt;
    auto r = relax_impl(n->a, dom);
    if (!r) return std::nullopt;
    return IntervalSet{floordiv(r->min, n->b), floordiv(r->max, n->b)};
  }
  if (auto* n = e.as<FloorMod>()) {
    if (!is_const_int(n->b, &c) || c <= 0) return std::nullopt;
    return IntervalSet{make_const(e.dtype(), 0), make_const(e.dtype(), double(c - 1))};
  }
  if (auto* n = e.as<Min>()) {
    auto r = both(n->a, n->b);
    if (!r) return std::nullopt;
    return IntervalSet{min(r->first.min, r->second.min), min(r->first.max, r->second.max)};
  }
  if (auto* n = e.as<Max>()) {
    auto r = both(n->a, n->b);
    if (!r) return std::nullopt;
    return IntervalSet{max(r->first.min, r->second.min), max(r->first.max, r->second.max)};
  }
  return std::nullopt;
}

Range whole_dim(const Buffer& b, size_t d) {
  return Range{make_const(b->shape[d].dtype(), 0), b->shape[d]};
}

// Operands of the min (or max) chain at the top of `e`: 1 for an expression of another kind.
int chain_operands(const Expr& e) {
  if (auto* n = e.as<Min>()) return chain_operands(n->a) + chain_operands(n->b);
  if (auto* n = e.as<Max>()) return chain_operands(n->a) + chain_operands(n->b);
  return 1;
}

// A union bound that the simplifier leaves as a min or max of more than this many operands is
// widened to the whole dim: a row of many clamped taps (a pooling row's 54 window reads) grew a
// chain whose every union re-simplified all of it (the compile of Inception-v3 took 10x longer).
constexpr int kMaxBoundOperands = 4;

// Accumulates regions per buffer, in order of first access: per dim the lowest and highest
// index, as expressions (the extents are computed once, in regions()).
class RegionSet {
 public:
  void add(const Buffer& b, std::vector<IntervalSet> dims) {
    for (Entry& e : entries_) {
      if (!e.buffer.same_as(b)) continue;
      for (size_t d = 0; d < dims.size(); ++d) {
        if (e.whole[d]) continue;
        bool same_lo = structural_equal(e.lo[d], dims[d].min),
             same_hi = structural_equal(e.hi[d], dims[d].max);
        if (same_lo && same_hi) continue;
        // Clamped indices on both sides (max(min(i, n - 1), 0)) leave no chain to simplify.
        if (chain_operands(e.lo[d]) + chain_operands(dims[d].min) > kMaxBoundOperands ||
            chain_operands(e.hi[d]) + chain_operands(dims[d].max) > kMaxBoundOperands) {
          e.whole[d] = true;
          continue;
        }
        Expr lo = same_lo ? e.lo[d] : arith::simplify(min(e.lo[d], dims[d].min));
        Expr hi = same_hi ? e.hi[d] : arith::simplify(max(e.hi[d], dims[d].max));
        if (chain_operands(lo) > kMaxBoundOperands || chain_operands(hi) > kMaxBoundOperands) {
          e.whole[d] = true;
          continue;
        }
        e.lo[d] = lo, e.hi[d] = hi;
      }
      return;
    }
    Entry e{b, {}, {}, std::vector<bool>(dims.size(), false)};
    for (const IntervalSet& iv : dims) {
      e.lo.push_back(arith::simplify(iv.min));
      e.hi.push_back(arith::simplify(iv.max));
    }
    entries_.push_back(std::move(e));
  }
  void add(const Buffer& b, const std::vector<Expr>& indices, const VarDomain& dom) {
    std::vector<IntervalSet> dims;
    for (size_t d = 0; d < indices.size(); ++d) {
      // An index of no loop inside the block is its own bound (simplified once, by add).
      auto iv =
          uses_dom(indices[d], dom) ? relax(indices[d], dom) : IntervalSet{indices[d], indices[d]};
      if (!iv) {
        Range w = whole_dim(b, d);
        iv = IntervalSet{w.min, w.extent - 1};
      }
      dims.push_back(*iv);
    }
    add(b, std::move(dims));
  }
  std::vector<BufferRegion> regions() const {
    std::vector<BufferRegion> out;
    for (const Entry& e : entries_) {
      BufferRegion r{e.buffer, {}};
      for (size_t d = 0; d < e.lo.size(); ++d)
        r.region.push_back(e.whole[d] ? whole_dim(e.buffer, d)
                                      : Range{e.lo[d], arith::simplify(e.hi[d] - e.lo[d] + 1)});
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  struct Entry {
    Buffer buffer;
    std::vector<Expr> lo, hi;
    std::vector<bool> whole;  // widened to the whole dim
  };
  std::vector<Entry> entries_;
};

class AccessCollector : public IRVisitor {
 public:
  explicit AccessCollector(const std::vector<Buffer>& alloc) {
    for (const Buffer& b : alloc) skip_.insert(b.get());
  }
  RegionSet reads, writes;

  void visit_For(const For* op, const Stmt& s) override {
    dom_[op->loop_var.node()] = Range{op->min, op->extent};
    IRVisitor::visit_For(op, s);
    dom_.erase(op->loop_var.node());
  }
  // A buffer allocated inside the block is its own scratch, not an access.
  void visit_Allocate(const Allocate* op, const Stmt& s) override {
    skip_.insert(op->buffer.get());
    IRVisitor::visit_Allocate(op, s);
  }
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    if (!skip_.count(op->buffer.get())) reads.add(Buffer(op->buffer), op->indices, dom_);
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    if (!skip_.count(op->buffer.get())) writes.add(Buffer(op->buffer), op->indices, dom_);
    IRVisitor::visit_BufferStore(op, s);
  }
  void visit_BlockRealize(const BlockRealize* op, const Stmt&) override {
    const Block* b = op->block_node();
    VarMap bind;
    for (size_t i = 0; i < b->iter_vars.size(); ++i)
      bind[b->iter_vars[i].var.node()] = op->iter_values[i];
    for (auto [from, to] : {std::pair{&b->reads, &reads}, std::pair{&b->writes, &writes}}) {
      for (const BufferRegion& r : *from) {
        if (skip_.count(r.buffer.get())) continue;
        std::vector<IntervalSet> dims;
        for (const Range& x : r.region) {
          Expr lo = substitute(x.min, bind), hi = substitute(x.min + x.extent - 1, bind);
          auto a = relax(lo, dom_), z = relax(hi, dom_);
          if (a && z) {
            dims.push_back({a->min, z->max});
          } else {
            Range w = whole_dim(r.buffer, dims.size());
            dims.push_back({w.min, w.extent - 1});
          }
        }
        to->add(r.buffer, std::move(dims));
      }
    }
  }

 private:
  VarDomain dom_;
  std::unordered_set<const BufferNode*> skip_;
};

}  // namespace

std::optional<IntervalSet> relax(const Expr& e, const VarDomain& dom) {
  auto r = relax_impl(e, dom);
  if (!r) return r;
  return IntervalSet{arith::simplify(r->min), arith::simplify(r->max)};
}

std::vector<BufferRegion> relax_regions(const std::vector<BufferRegion>& regions,
                                        const VarDomain& dom) {
  RegionSet out;
  for (const BufferRegion& r : regions) {
    std::vector<IntervalSet> dims;
    for (size_t d = 0; d < r.region.size(); ++d) {
      const Range& x = r.region[d];
      auto a = relax(x.min, dom), z = relax(x.min + x.extent - 1, dom);
      if (a && z) {
        dims.push_back({a->min, z->max});
      } else {
        Range w = whole_dim(r.buffer, d);
        dims.push_back({w.min, w.extent - 1});
      }
    }
    out.add(r.buffer, std::move(dims));
  }
  return out.regions();
}

void infer_block_regions(const Stmt& body, const Stmt& init, const std::vector<Buffer>& alloc,
                         std::vector<BufferRegion>* reads, std::vector<BufferRegion>* writes) {
  AccessCollector c(alloc);
  if (init.defined()) c.visit(init);
  c.visit(body);
  *reads = c.reads.regions();
  *writes = c.writes.regions();
}

Stmt make_block(std::string name_hint, std::vector<IterVar> iter_vars, Stmt body, Stmt init,
                std::vector<Buffer> alloc_buffers, std::map<std::string, std::string> annotations) {
  std::vector<BufferRegion> reads, writes;
  infer_block_regions(body, init, alloc_buffers, &reads, &writes);
  return Block::make(std::move(name_hint), std::move(iter_vars), std::move(reads),
                     std::move(writes), std::move(body), std::move(init), std::move(alloc_buffers),
                     std::move(annotations));
}

Stmt reinfer_block_regions(const Block* b) {
  return make_block(b->name_hint, b->iter_vars, b->body, b->init, b->alloc_buffers, b->annotations);
}

}  // namespace ingot::tir
