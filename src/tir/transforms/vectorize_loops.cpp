// Vectorize loops: short vectorized loops of straight-line stores become vector stores (see the
// header).
#include "tir/transforms/vectorize_loops.h"

#include <map>
#include <optional>

#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/mutator.h"
#include "tir/op.h"

namespace ingot::tir {
namespace {

constexpr int64_t kMaxLanes = 64;

class Vectorizer {
 public:
  // `analyzer` knows the ranges of the loop variable and the loops around it.
  Vectorizer(const Var& v, int lanes, const arith::Analyzer& analyzer)
      : v_(v), lanes_(lanes), analyzer_(analyzer) {}

  // The store over all lanes, or nullopt when it cannot be written on vectors.
  std::optional<Stmt> store(const BufferStore* st) {
    auto idx = indices(st->indices);
    if (!idx) return std::nullopt;
    auto value = expr(st->value);
    if (!value) return std::nullopt;
    if (!idx->back().as<Ramp>()) return std::nullopt;  // every lane to the same place
    return BufferStore::make(Buffer(st->buffer), widen(*value), *idx);
  }

  // A value bound by a LetStmt inside the loop: over all lanes (a vector variable, which the
  // let's body reads in place of the scalar one) when it varies with the lane, else as it is.
  // nullopt when it cannot be written on vectors.
  std::optional<std::pair<Var, Expr>> let(const Var& var, const Expr& value) {
    if (!uses(value)) return std::make_pair(var, value);
    auto x = expr(value);
    if (!x) return std::nullopt;
    Expr wide = widen(*x);
    Var lanes(var.name(), wide.dtype());
    lets_[var.node()] = lanes;
    return std::make_pair(lanes, wide);
  }

 private:
  // Whether `e` varies with the lane: it reads the loop variable or a vector let variable.
  bool uses(const Expr& e) const {
    return uses_var(e, [&](const VarNode* x) { return x == v_.node() || lets_.count(x) != 0; });
  }

  // Scalars broadcast over the lanes.
  Expr widen(const Expr& e) const {
    return e.dtype().lanes == lanes_ ? e : Broadcast::make(e, lanes_);
  }

  // Indices with the loop variable only in the last one, with coefficient 1: that one becomes
  // a Ramp (the others stay). Indices that do not fit as written are simplified with the loop
  // ranges first (a channel-blocked read X[(vo * 16 + v) / 32, .., (vo * 16 + v) % 32] in a
  // strip of 16 lanes is X[vo / 2, .., vo % 2 * 16 + v]).
  // Only strips of a power of two lanes (the runs the schedule rules split) take the simplified
  // form: a 28-wide channel shuffle measured slower as one 28-lane access than as LLVM's loop.
  std::optional<std::vector<Expr>> indices(const std::vector<Expr>& in) const {
    if (auto out = ramp_indices(in)) return out;
    if ((lanes_ & (lanes_ - 1)) != 0) return std::nullopt;
    std::vector<Expr> simple;
    for (const Expr& e : in) simple.push_back(analyzer_.simplify(e));
    return ramp_indices(simple);
  }
  std::optional<std::vector<Expr>> ramp_indices(const std::vector<Expr>& in) const {
    std::vector<Expr> out = in;
    for (size_t d = 0; d + 1 < in.size(); ++d)
      if (uses(in[d])) return std::nullopt;
    if (in.empty() || !uses(in.back())) return out;
    auto lv = arith::var_plus_offset(in.back(), [&](const VarNode* x) { return x == v_.node(); });
    if (!lv) return std::nullopt;
    out.back() = Ramp::make(lv->offset, make_const(in.back().dtype(), 1), lanes_);
    return out;
  }

  std::optional<Expr> expr(const Expr& e) {
    if (!uses(e)) return e;  // loop-invariant: stays scalar
    if (auto* x = e.as<VarNode>()) {
      auto it = lets_.find(x);
      if (it == lets_.end()) return std::nullopt;
      return Expr(it->second);
    }
    if (auto* ld = e.as<BufferLoad>()) {
      auto idx = indices(ld->indices);
      if (!idx || !idx->back().as<Ramp>()) return std::nullopt;
      return BufferLoad::make(Buffer(ld->buffer), *idx);
    }
    if (auto* s = e.as<Select>()) {
      if (uses(s->condition)) return std::nullopt;
      auto t = expr(s->true_value), f = expr(s->false_value);
      if (!t || !f) return std::nullopt;
      return Select::make(s->condition, widen(*t), widen(*f));
    }
    if (auto* c = e.as<Call>()) {  // math intrinsics are elementwise
      std::vector<Expr> args;
      for (const Expr& a : c->args) {
        auto x = expr(a);
        if (!x) return std::nullopt;
        args.push_back(widen(*x));
      }
      return Call::make(c->op, std::move(args));
    }
    if (auto* c = e.as<Cast>()) {
      auto x = expr(c->value);
      if (!x) return std::nullopt;
      return Cast::make(c->dtype.with_lanes(lanes_), widen(*x));
    }
    switch (e.tag()) {
#define INGOT_ARITH(N)                    \
  case NodeTag::N: {                      \
    auto* b = e.as<N>();                  \
    auto x = expr(b->a), y = expr(b->b);  \
    if (!x || !y) return std::nullopt;    \
    return N::make(widen(*x), widen(*y)); \
  }
      INGOT_ARITH(Add)
      INGOT_ARITH(Sub)
      INGOT_ARITH(Mul)
      INGOT_ARITH(Div)
      INGOT_ARITH(Min)
      INGOT_ARITH(Max)
      INGOT_ARITH(FloorDiv)  // (of values: an int4 weight's nibbles)
      INGOT_ARITH(FloorMod)
#undef INGOT_ARITH
      default:
        return std::nullopt;
    }
  }

  Var v_;
  int lanes_;
  const arith::Analyzer& analyzer_;
  std::map<const VarNode*, Var> lets_;  // let variables that vary with the lane -> vectors
};

class LoopVectorizer : public IRMutator {
 public:
  Stmt visit_For(const For* op, const Stmt& s) override {
    int64_t lo = 0, len = 0;
    if (is_const_int(op->min, &lo) && is_const_int(op->extent, &len) && len > 0)
      analyzer_.bind(op->loop_var, op->min, op->extent);
    Stmt base = IRMutator::visit_For(op, s);
    auto* f = base.as<For>();
    int64_t min = -1, n = 0;
    if (f->kind != ForKind::kVectorized || !is_const_int(f->min, &min) || min != 0 ||
        !is_const_int(f->extent, &n) || n < 2 || n > kMaxLanes || !f->loop_var.dtype().is_int())
      return base;
    Vectorizer vec(f->loop_var, int(n), analyzer_);
    std::optional<Stmt> out = body(vec, f->loop_var, f->body);
    return out ? *out : base;
  }

 private:
  arith::Analyzer analyzer_;  // ranges of the loops visited
  // Straight-line scalar stores, under ifs whose conditions do not use the loop variable, and
  // lets (a value the stores share: the Winograd transforms' partial sums).
  static std::optional<Stmt> body(Vectorizer& vec, const Var& v, const Stmt& s) {
    if (auto* l = s.as<LetStmt>()) {
      auto bound = vec.let(l->var, l->value);
      if (!bound) return std::nullopt;
      auto b = body(vec, v, l->body);
      if (!b) return std::nullopt;
      return LetStmt::make(bound->first, bound->second, *b);
    }
    if (auto* q = s.as<SeqStmt>()) {
      std::vector<Stmt> out;
      for (const Stmt& x : q->seq) {
        auto y = body(vec, v, x);
        if (!y) return std::nullopt;
        out.push_back(*y);
      }
      return SeqStmt::make(std::move(out));
    }
    if (auto* c = s.as<IfThenElse>()) {
      if (uses_var(c->condition, v)) return std::nullopt;
      auto t = body(vec, v, c->then_case);
      if (!t) return std::nullopt;
      if (!c->else_case.defined()) return IfThenElse::make(c->condition, *t);
      auto e = body(vec, v, c->else_case);
      if (!e) return std::nullopt;
      return IfThenElse::make(c->condition, *t, *e);
    }
    auto* st = s.as<BufferStore>();
    if (!st || st->value.dtype().lanes != 1) return std::nullopt;
    return vec.store(st);
  }
};

}  // namespace

Stmt vectorize_loops(const Stmt& s) {
  return LoopVectorizer().mutate(s);
}

PrimFunc vectorize_loops(PrimFunc f) {
  f.body = vectorize_loops(f.body);
  return f;
}

}  // namespace ingot::tir
