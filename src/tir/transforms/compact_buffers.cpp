// Compact buffers: a visitor collecting every access to each allocated buffer with the loops
// around it, a plan per buffer (its region's start and size, the loop to allocate it in), then a
// mutator applying the plans. Loops bound to a thread tag stand for one variable per tag (a
// ThreadAxis) while the regions are computed; each access gets its own loop variable back.
#include "tir/transforms/compact_buffers.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

enum class AxisKind : uint8_t { kNone, kBlock, kThread, kUnknown };

AxisKind axis_kind(const For& loop) {
  if (loop.kind != ForKind::kThreadBinding) return AxisKind::kNone;
  if (loop.thread_tag.starts_with("blockIdx.")) return AxisKind::kBlock;
  if (loop.thread_tag.starts_with("threadIdx.")) return AxisKind::kThread;
  return AxisKind::kUnknown;
}

// One thread tag: every loop bound to it runs over the same hardware index.
struct ThreadAxis {
  Var var;
  Range range;
  bool uniform = true;  // every loop bound to the tag has this range and the var's dtype
};
using ThreadAxes = std::map<std::string, ThreadAxis>;

bool is_axis_var(const VarNode* v, const ThreadAxes& axes) {
  return std::any_of(axes.begin(), axes.end(),
                     [&](const auto& entry) { return entry.second.var.node() == v; });
}

// The loops and lets around the statement being walked, kept alike by the collecting and the
// rewriting walk: loops are numbered in walk order (the same in both walks), and `canonical`
// maps each let variable to its value and each thread-bound loop variable to its axis.
class Scope {
 public:
  struct Loop {
    int id;
    Var var;
    Range range;  // canonical
    AxisKind kind;
    std::string tag;
  };

  explicit Scope(const ThreadAxes& axes) : axes_(axes) {}
  Expr canonical(const Expr& e) const { return substitute(e, canonical_); }
  const std::vector<Loop>& loops() const { return loops_; }

  // A thread-bound loop's tag must be in the axes already.
  void push_loop(const For& op) {
    loops_.push_back(Loop{next_id_++, op.loop_var, Range{canonical(op.min), canonical(op.extent)},
                          axis_kind(op), op.thread_tag});
    // (A thread loop of one, the axis's first thread only, is its start.)
    int64_t extent = 0;
    if (op.kind == ForKind::kThreadBinding)
      canonical_[op.loop_var.node()] = is_const_int(op.extent, &extent) && extent == 1
                                           ? canonical(op.min)
                                           : Expr(axes_.at(op.thread_tag).var);
  }
  void pop_loop() {
    canonical_.erase(loops_.back().var.node());
    loops_.pop_back();
  }
  void push_let(const LetStmt& op) { canonical_[op.var.node()] = canonical(op.value); }
  void pop_let(const LetStmt& op) { canonical_.erase(op.var.node()); }

 private:
  const ThreadAxes& axes_;
  std::vector<Loop> loops_;
  VarMap canonical_;
  int next_id_ = 0;
};

struct Access {
  std::vector<Expr> indices;  // canonical
  std::vector<Scope::Loop> loops;
  bool in_warp_mma = false;  // read by a tensor-core product, which reads its masked elements too
};

// An allocated buffer, where it is allocated and every access to it.
struct Candidate {
  Buffer buffer;
  size_t alloc_depth = 0;  // loops around its Allocate
  int allocations = 0;
  bool has_opaque_access = false;  // a vector, data-dependent or flat (one for all dims) index
  std::vector<Access> accesses;
};

bool has_load(const Expr& e) {
  struct LoadFinder : IRVisitor {
    bool found = false;
    void visit_BufferLoad(const BufferLoad*, const Expr&) override { found = true; }
  } finder;
  finder.visit(e);
  return finder.found;
}

class AccessCollector : public IRVisitor {
 public:
  AccessCollector() : scope_(axes_) {}
  const ThreadAxes& axes() const { return axes_; }
  const std::vector<const BufferNode*>& allocation_order() const { return order_; }
  const Candidate& candidate(const BufferNode* b) const { return candidates_.at(b); }

  void visit_For(const For* op, const Stmt&) override {
    visit(op->min);
    visit(op->extent);
    if (op->kind == ForKind::kThreadBinding) add_axis_loop(*op);
    scope_.push_loop(*op);
    warp_mma_depth_ += op->kind == ForKind::kWarpMma;
    visit(op->body);
    warp_mma_depth_ -= op->kind == ForKind::kWarpMma;
    scope_.pop_loop();
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&) override {
    visit(op->value);
    scope_.push_let(*op);
    visit(op->body);
    scope_.pop_let(*op);
  }
  void visit_Allocate(const Allocate* op, const Stmt&) override {
    auto [it, added] = candidates_.try_emplace(op->buffer.get());
    if (added) order_.push_back(op->buffer.get());
    it->second.buffer = Buffer(op->buffer);
    it->second.alloc_depth = scope_.loops().size();
    ++it->second.allocations;
    visit(op->body);
  }
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    record(op->buffer.get(), op->indices);
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    record(op->buffer.get(), op->indices);
    IRVisitor::visit_BufferStore(op, s);
  }

 private:
  void add_axis_loop(const For& op) {
    Range range{scope_.canonical(op.min), scope_.canonical(op.extent)};
    auto [it, added] = axes_.try_emplace(
        op.thread_tag, ThreadAxis{Var(op.thread_tag, op.loop_var.dtype()), range});
    ThreadAxis& axis = it->second;
    if (added) return;
    // A loop of one at the axis's start is its first thread only (a GEMV's write-back on the
    // first row of threads): within the axis's range, which the widest loop gives.
    auto one = [](const Range& r) {
      int64_t e = 0;
      return is_const_int(r.extent, &e) && e == 1;
    };
    bool same_start = structural_equal(axis.range.min, range.min);
    if (same_start && one(range) && axis.var.dtype() == op.loop_var.dtype()) return;
    if (same_start && one(axis.range) && axis.var.dtype() == op.loop_var.dtype()) {
      axis.range = range;
      return;
    }
    axis.uniform = axis.uniform && axis.var.dtype() == op.loop_var.dtype() && same_start &&
                   structural_equal(axis.range.extent, range.extent);
  }
  void record(const BufferNode* buffer, const std::vector<Expr>& indices) {
    auto it = candidates_.find(buffer);
    if (it == candidates_.end()) return;
    Candidate& c = it->second;
    if (indices.size() != buffer->shape.size()) c.has_opaque_access = true;
    // A vector index Ramp(base, stride, lanes) with a constant stride (a CPU register tile's
    // row) counts as its first and last elements' two accesses.
    Access first{{}, scope_.loops(), warp_mma_depth_ > 0}, last = first;
    bool ramp = false;
    for (const Expr& i : indices) {
      Expr lo = i, hi = i;
      int64_t stride = 0;
      if (auto* r = i.as<Ramp>();
          r != nullptr && is_const_int(r->stride, &stride) && r->base.dtype().is_scalar()) {
        lo = r->base;
        hi = r->base + make_const(r->base.dtype(), double(stride * (r->lanes - 1)));
        ramp = true;
      }
      if (!lo.dtype().is_scalar() || has_load(i)) c.has_opaque_access = true;
      first.indices.push_back(scope_.canonical(lo));
      last.indices.push_back(scope_.canonical(hi));
    }
    c.accesses.push_back(std::move(first));
    if (ramp) c.accesses.push_back(std::move(last));
  }

  ThreadAxes axes_;
  Scope scope_;
  int warp_mma_depth_ = 0;
  std::unordered_map<const BufferNode*, Candidate> candidates_;
  std::vector<const BufferNode*> order_;
};

// The ranges known around an access: every thread axis and the first `depth` unbound loops.
arith::Analyzer analyzer_of(const std::vector<Scope::Loop>& loops, size_t depth,
                            const ThreadAxes& axes) {
  arith::Analyzer az;
  for (const auto& [tag, axis] : axes) az.bind(axis.var, axis.range.min, axis.range.extent);
  for (size_t k = 0; k < depth; ++k)
    if (loops[k].kind == AxisKind::kNone)
      az.bind(loops[k].var, loops[k].range.min, loops[k].range.extent);
  return az;
}

// The interval e takes over dom, relaxing the bounds again while they depend on a loop of dom
// (an inner loop's range may use an outer loop's variable); nullopt when relax gives up.
std::optional<IntervalSet> relax_fully(const Expr& e, const VarDomain& dom) {
  auto in_dom = [&](const VarNode* v) { return dom.count(v) > 0; };
  std::optional<IntervalSet> iv = relax(e, dom);
  // Each round removes one level of loop nesting.
  for (size_t round = 0; iv && (uses_var(iv->min, in_dom) || uses_var(iv->max, in_dom)); ++round) {
    INGOT_ICHECK(round < dom.size(), "loop ranges that depend on each other in {}", to_string(e));
    auto lo = relax(iv->min, dom), hi = relax(iv->max, dom);
    if (!lo || !hi) return std::nullopt;
    iv = IntervalSet{lo->min, hi->max};
  }
  return iv;
}

// The box one access touches over the loops relaxed for it: those inside the allocation's loop
// (the first lca_depth loops are around every access), and every threadIdx axis of a shared
// buffer (shared by the block's threads). Block axes and a local buffer's thread axes stay.
std::optional<std::vector<IntervalSet>> access_region(const Access& a, size_t lca_depth,
                                                      bool shared, const ThreadAxes& axes) {
  VarDomain dom;
  for (size_t k = 0; k < a.loops.size(); ++k) {
    const Scope::Loop& loop = a.loops[k];
    if (loop.kind == AxisKind::kNone && k >= lca_depth) dom[loop.var.node()] = loop.range;
    if (loop.kind == AxisKind::kThread && shared) {
      const ThreadAxis& axis = axes.at(loop.tag);
      dom[axis.var.node()] = axis.range;
    }
  }
  std::vector<IntervalSet> region;
  for (const Expr& index : a.indices) {
    auto iv = relax_fully(index, dom);
    if (!iv) return std::nullopt;
    region.push_back(*iv);
  }
  return region;
}

// a - b with like terms cancelled term by term (the rewrite simplifier keeps the by * 64 of
// by * 64 + ty * 4 - by * 64).
// A difference whose bounds meet (floordiv(bx, 2) * 16 for a block index bx in [0, 2)) is that
// constant.
Expr difference(const Expr& a, const Expr& b, const arith::Analyzer& az) {
  Expr d = az.simplify((arith::linear_form(a) - arith::linear_form(b)).to_expr(a.dtype()));
  arith::ConstIntBound bound = az.bound_of(d);
  if (!is_const_int(d) && bound.min_value == bound.max_value &&
      bound.min_value != arith::ConstIntBound::kPosInf &&
      bound.min_value != arith::ConstIntBound::kNegInf)
    return IntImm::make(d.dtype(), bound.min_value);
  return d;
}

// Widens acc to cover iv: false when their bounds are not a constant apart.
bool unite(IntervalSet* acc, const IntervalSet& iv, const arith::Analyzer& az) {
  int64_t lo_diff = 0, hi_diff = 0;
  if (iv.min.dtype() != acc->min.dtype() ||
      !is_const_int(difference(iv.min, acc->min, az), &lo_diff) ||
      !is_const_int(difference(iv.max, acc->max, az), &hi_diff))
    return false;
  if (lo_diff < 0) acc->min = iv.min;
  if (hi_diff > 0) acc->max = iv.max;
  return true;
}

// An access's indices into the compacted buffer: each canonical index less the region's start,
// with each thread axis replaced by the innermost loop around the access bound to it; nullopt
// when an axis remains that no loop around the access is bound to.
std::optional<std::vector<Expr>> compacted_indices(const std::vector<Expr>& indices,
                                                   const std::vector<Expr>& mins,
                                                   const std::vector<Scope::Loop>& loops,
                                                   const ThreadAxes& axes) {
  arith::Analyzer az = analyzer_of(loops, loops.size(), axes);
  VarMap own_loop_var;
  for (const Scope::Loop& loop : loops)
    if (loop.kind != AxisKind::kNone) own_loop_var[axes.at(loop.tag).var.node()] = loop.var;
  std::vector<Expr> out;
  for (size_t d = 0; d < indices.size(); ++d) {
    Expr offset = substitute(difference(indices[d], mins[d], az), own_loop_var);
    if (uses_var(offset, [&](const VarNode* v) { return is_axis_var(v, axes); }))
      return std::nullopt;
    out.push_back(offset);
  }
  return out;
}

struct Plan {
  Buffer buffer;           // compacted
  std::vector<Expr> mins;  // the region's start per dimension, canonical
  int alloc_loop = -1;     // the loop whose body the Allocate wraps; -1: the Allocate stays
};

// How many loops, outermost first, are around every access.
size_t common_loop_depth(const std::vector<Access>& accesses) {
  const std::vector<Scope::Loop>& first = accesses.front().loops;
  size_t depth = first.size();
  for (const Access& a : accesses) {
    size_t k = 0;
    while (k < depth && k < a.loops.size() && a.loops[k].id == first[k].id) ++k;
    depth = k;
  }
  return depth;
}

// The compaction of c, or nullopt when it is left as it is (see the header) or already compact
// and allocated where it belongs.
std::optional<Plan> plan_compaction(const Candidate& c, const ThreadAxes& axes) {
  const BufferNode& b = *c.buffer.get();
  if (c.allocations != 1 || c.has_opaque_access || c.accesses.empty() || !b.strides.empty())
    return std::nullopt;
  for (const Access& a : c.accesses)
    for (const Scope::Loop& loop : a.loops)
      if (loop.kind == AxisKind::kUnknown ||
          (loop.kind != AxisKind::kNone && !axes.at(loop.tag).uniform))
        return std::nullopt;

  size_t lca_depth = common_loop_depth(c.accesses);
  bool shared = b.scope == StorageScope::kShared;
  arith::Analyzer outer = analyzer_of(c.accesses.front().loops, lca_depth, axes);
  std::optional<std::vector<IntervalSet>> region;
  for (const Access& a : c.accesses) {
    auto r = access_region(a, lca_depth, shared, axes);
    if (!r) return std::nullopt;
    if (!region) {
      region = std::move(r);
      continue;
    }
    for (size_t d = 0; d < r->size(); ++d)
      if (!unite(&(*region)[d], (*r)[d], outer)) return std::nullopt;
  }

  bool moves = lca_depth > c.alloc_depth, compact = !moves;
  bool whole_tiles = std::any_of(c.accesses.begin(), c.accesses.end(),
                                 [](const Access& a) { return a.in_warp_mma; });
  std::vector<Expr> shape, mins;
  for (size_t d = 0; d < region->size(); ++d) {
    const IntervalSet& iv = (*region)[d];
    int64_t last = 0, dim = 0, start = 0;
    if (!is_const_int(difference(iv.max, iv.min, outer), &last) || last < 0 ||
        !is_const_int(b.shape[d], &dim))
      return std::nullopt;
    // A tile wider than the dimension (16 rows of a 13-row matrix, the rest masked): the
    // accesses that happen lie in [min, dim), so dim elements from a start >= 0 hold them.
    // Not for a tensor-core product's operand: mma.sync reads the masked rows too.
    if (last >= dim && !whole_tiles) {
      if (!outer.can_prove(iv.min >= make_const(iv.min.dtype(), 0))) return std::nullopt;
      last = dim - 1;
    }
    int64_t extent = last + 1;
    compact = compact && extent == dim && is_const_int(iv.min, &start) && start == 0;
    shape.push_back(IntImm::make(b.shape[d].dtype(), extent));
    mins.push_back(iv.min);
  }
  if (compact) return std::nullopt;
  for (const Access& a : c.accesses)
    if (!compacted_indices(a.indices, mins, a.loops, axes)) return std::nullopt;
  return Plan{Buffer::make(b.name, b.dtype, std::move(shape), b.scope, {}, b.alignment),
              std::move(mins), moves ? c.accesses.front().loops[lca_depth - 1].id : -1};
}

class Compactor : public IRMutator {
 public:
  // plans in allocation order: Allocates moved to one loop keep that order, outermost first.
  Compactor(const std::vector<std::pair<const BufferNode*, Plan>>& plans, const ThreadAxes& axes)
      : axes_(axes), scope_(axes) {
    for (const auto& [buffer, plan] : plans) {
      plans_.emplace(buffer, plan);
      if (plan.alloc_loop >= 0) allocs_in_loop_[plan.alloc_loop].push_back(plan.buffer);
    }
  }

  Stmt visit_For(const For* op, const Stmt& s) override {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    scope_.push_loop(*op);
    int id = scope_.loops().back().id;
    Stmt body = mutate(op->body);
    scope_.pop_loop();
    if (auto it = allocs_in_loop_.find(id); it != allocs_in_loop_.end())
      for (auto b = it->second.rbegin(); b != it->second.rend(); ++b)
        body = Allocate::make(*b, body);
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return s;
    return For::make(op->loop_var, min, extent, op->kind, body, op->thread_tag);
  }
  Stmt visit_LetStmt(const LetStmt* op, const Stmt& s) override {
    Expr value = mutate(op->value);
    scope_.push_let(*op);
    Stmt body = mutate(op->body);
    scope_.pop_let(*op);
    if (value.same_as(op->value) && body.same_as(op->body)) return s;
    return LetStmt::make(op->var, value, body);
  }
  Stmt visit_Allocate(const Allocate* op, const Stmt& s) override {
    auto it = plans_.find(op->buffer.get());
    if (it == plans_.end()) return IRMutator::visit_Allocate(op, s);
    Stmt body = mutate(op->body);
    return it->second.alloc_loop < 0 ? Allocate::make(it->second.buffer, body) : body;
  }
  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    auto it = plans_.find(op->buffer.get());
    if (it == plans_.end()) return IRMutator::visit_BufferLoad(op, e);
    return BufferLoad::make(it->second.buffer, compacted(it->second, op->indices));
  }
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    auto it = plans_.find(op->buffer.get());
    if (it == plans_.end()) return IRMutator::visit_BufferStore(op, s);
    return BufferStore::make(it->second.buffer, mutate(op->value),
                             compacted(it->second, op->indices));
  }

 private:
  std::vector<Expr> compacted(const Plan& plan, const std::vector<Expr>& indices) const {
    std::vector<Expr> canonical;
    for (const Expr& i : indices) {
      auto* r = i.as<Ramp>();
      canonical.push_back(scope_.canonical(r != nullptr ? r->base : i));
    }
    auto out = compacted_indices(canonical, plan.mins, scope_.loops(), axes_);
    INGOT_ICHECK(out.has_value(), "an access to {} that its plan did not check", plan.buffer->name);
    for (size_t d = 0; d < indices.size(); ++d)  // (a vector index keeps its stride and lanes)
      if (auto* r = indices[d].as<Ramp>()) (*out)[d] = Ramp::make((*out)[d], r->stride, r->lanes);
    return *out;
  }

  const ThreadAxes& axes_;
  Scope scope_;
  std::unordered_map<const BufferNode*, Plan> plans_;
  std::unordered_map<int, std::vector<Buffer>> allocs_in_loop_;
};

}  // namespace

Stmt compact_buffers_stmt(const Stmt& s, bool local_only) {
  INGOT_ICHECK(!has_blocks(s), "compact_buffers runs on loops (after lower_blocks)");
  AccessCollector collector;
  collector.visit(s);
  std::vector<std::pair<const BufferNode*, Plan>> plans;
  for (const BufferNode* b : collector.allocation_order()) {
    if (local_only && b->scope != StorageScope::kLocal) continue;
    if (auto plan = plan_compaction(collector.candidate(b), collector.axes()))
      plans.emplace_back(b, std::move(*plan));
  }
  if (plans.empty()) return s;
  return Compactor(plans, collector.axes()).mutate(s);
}

PrimFunc compact_buffers(PrimFunc f, bool local_only) {
  f.body = compact_buffers_stmt(f.body, local_only);
  return f;
}

}  // namespace ingot::tir
