// The simplifier: bottom-up constant folding, range-based folding of integer expressions whose
// bound is a single value, then the rewrite rules of the node's kind until none applies.
// Rule side conditions that are not constant are handed to the prover (comparisons of
// integers decided by the interval of their simplified difference).
#include "support/error.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/const_fold.h"
#include "tir/arith/div_mod_split.h"
#include "tir/arith/pattern.h"
#include "tir/mutator.h"
#include "tir/op.h"

namespace ingot::tir::arith {
namespace {

// Rule conditions may recurse into the simplifier through the prover; deeper than this,
// only constant conditions count.
constexpr int kMaxProofDepth = 3;
// Rewrites per top-level call: a guard against rule sets that cycle.
constexpr int kMaxRewrites = 2000;

bool prove(const Expr& cond, const Analyzer& a, int depth);

class RewriteSimplifier : public IRMutator {
 public:
  RewriteSimplifier(const Analyzer& a, int depth) : analyzer_(a), depth_(depth) {}

  Expr visit_expr(const Expr& e) override { return post(IRMutator::visit_expr(e)); }

 private:
  Expr post(const Expr& in) {
    Expr e = const_fold(in);
    // A select on a constant condition, of any lanes (a guard decided after unrolling).
    if (auto* s = e.as<Select>())
      if (auto* c = s->condition.as<IntImm>()) return c->value ? s->true_value : s->false_value;
    if (!e.dtype().is_scalar() || e.as<IntImm>() || e.as<FloatImm>()) return e;
    DataType d = e.dtype();
    if ((d.is_integer() || d.is_bool()) && !e.as<VarNode>()) {
      ConstIntBound b = analyzer_.bound_of(e);
      if (b.is_point()) return IntImm::make(d, b.min_value);
    }
    for (const RewriteRule& rule : rules_for(e.tag())) {
      Bindings bind;
      if (!match(rule.pattern, e, &bind) || !allowed(rule, bind)) continue;
      if (rule.condition.defined() &&
          !holds(instantiate(rule.condition, bind, DataType::boolean())))
        continue;
      if (++rewrites_ > kMaxRewrites) return e;
      Expr r = instantiate(rule.result, bind, d);
      INGOT_ICHECK(r.dtype() == d, "rule '{}' changed dtype {} to {}", rule.name, d.str(),
                   r.dtype().str());
      return visit_expr(r);
    }
    // No rule applied: a multi-term floordiv / floormod may still split by its linear form.
    if (auto split = split_div_mod(e, analyzer_)) {
      if (++rewrites_ > kMaxRewrites) return e;
      return visit_expr(*split);
    }
    return e;
  }

  static bool allowed(const RewriteRule& rule, const Bindings& bind) {
    if (rule.float_ok) return true;
    for (auto& [var, value] : bind)
      if (value.dtype().is_float()) return false;
    return true;
  }

  bool holds(const Expr& cond) {
    if (auto* imm = cond.as<IntImm>()) return imm->value != 0;
    return depth_ < kMaxProofDepth && prove(cond, analyzer_, depth_ + 1);
  }

  const Analyzer& analyzer_;
  int depth_;
  int rewrites_ = 0;
};

Expr simplify_at(const Expr& e, const Analyzer& a, int depth) {
  return RewriteSimplifier(a, depth).mutate(e);
}

// The logical negation of a comparison / connective, or undefined.
Expr negate(const Expr& c) {
  if (auto* n = c.as<Not>()) return n->a;
  if (auto* x = c.as<LT>()) return x->b <= x->a;
  if (auto* x = c.as<LE>()) return x->b < x->a;
  if (auto* x = c.as<GT>()) return x->a <= x->b;
  if (auto* x = c.as<GE>()) return x->a < x->b;
  if (auto* x = c.as<EQ>()) return x->a != x->b;
  if (auto* x = c.as<NE>()) return x->a == x->b;
  if (auto* x = c.as<And>()) {
    Expr na = negate(x->a), nb = negate(x->b);
    return na.defined() && nb.defined() ? (na || nb) : Expr();
  }
  if (auto* x = c.as<Or>()) {
    Expr na = negate(x->a), nb = negate(x->b);
    return na.defined() && nb.defined() ? (na && nb) : Expr();
  }
  return Expr();
}

template <typename Cmp>
bool prove_cmp(const Cmp* c, const Analyzer& a, int depth, bool (*test)(ConstIntBound)) {
  DataType d = c->a.dtype();
  if (!d.is_scalar() || !d.is_integer()) return false;
  return test(a.bound_of(simplify_at(c->a - c->b, a, depth)));
}

bool prove(const Expr& cond, const Analyzer& a, int depth) {
  if (auto* imm = cond.as<IntImm>()) return imm->value != 0;
  if (auto* x = cond.as<And>()) return prove(x->a, a, depth) && prove(x->b, a, depth);
  if (auto* x = cond.as<Or>()) return prove(x->a, a, depth) || prove(x->b, a, depth);
  if (auto* x = cond.as<Not>()) {
    Expr n = negate(x->a);
    return n.defined() && prove(n, a, depth);
  }
  using B = ConstIntBound;
  if (auto* x = cond.as<LT>()) return prove_cmp(x, a, depth, [](B b) { return b.max_value < 0; });
  if (auto* x = cond.as<LE>()) return prove_cmp(x, a, depth, [](B b) { return b.max_value <= 0; });
  if (auto* x = cond.as<GT>()) return prove_cmp(x, a, depth, [](B b) { return b.min_value > 0; });
  if (auto* x = cond.as<GE>()) return prove_cmp(x, a, depth, [](B b) { return b.min_value >= 0; });
  if (auto* x = cond.as<EQ>())
    return prove_cmp(x, a, depth, [](B b) { return b.min_value == 0 && b.max_value == 0; });
  if (auto* x = cond.as<NE>())
    return prove_cmp(x, a, depth, [](B b) { return b.min_value > 0 || b.max_value < 0; });
  return false;
}

}  // namespace

bool Analyzer::can_prove(const Expr& cond) const {
  INGOT_ICHECK(cond.dtype() == DataType::boolean(), "can_prove of a {} expression",
               cond.dtype().str());
  return prove(simplify_at(cond, *this, 1), *this, 1);
}

Expr Analyzer::simplify(const Expr& e) const {
  return simplify_at(e, *this, 0);
}

Expr simplify(const Expr& e, const Analyzer& analyzer) {
  return analyzer.simplify(e);
}

Expr simplify(const Expr& e) {
  return Analyzer().simplify(e);
}

}  // namespace ingot::tir::arith
