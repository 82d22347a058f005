// The rewrite simplifier and interval analysis: each rule kind on hand-built inputs, every
// rule checked for soundness by evaluation, and random expressions evaluated before/after.
#include <gtest/gtest.h>

#include <random>

#include "eval_helper.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/arith/pattern.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"

namespace ingot::tir::arith {
namespace {

using testing::Env;
using testing::eval;

Expr c(int64_t v) {
  return i64(v);
}
Expr T() {
  return IntImm::make(DataType::boolean(), 1);
}
Expr F() {
  return IntImm::make(DataType::boolean(), 0);
}

#define EXPECT_SIMPLIFIES(in, out, analyzer)                                              \
  do {                                                                                    \
    Expr got_ = simplify(in, analyzer);                                                   \
    EXPECT_TRUE(structural_equal(got_, out))                                              \
        << to_string(in) << " -> " << to_string(got_) << ", expected " << to_string(out); \
  } while (0)

TEST(Bound, ClosedForms) {
  Analyzer a;
  Var i("i"), j("j");
  a.bind(i, c(0), c(16));
  a.bind(j, c(-3), c(4));  // [-3, 0]
  EXPECT_EQ(a.bound_of(i), (ConstIntBound{0, 15}));
  EXPECT_EQ(a.bound_of(i * 4 + j), (ConstIntBound{-3, 60}));
  EXPECT_EQ(a.bound_of(i - j), (ConstIntBound{0, 18}));
  EXPECT_EQ(a.bound_of(i * j), (ConstIntBound{-45, 0}));
  EXPECT_EQ(a.bound_of(floordiv(i, c(4))), (ConstIntBound{0, 3}));
  EXPECT_EQ(a.bound_of(floordiv(j, c(2))), (ConstIntBound{-2, 0}));
  EXPECT_EQ(a.bound_of(floormod(i + 32, c(16))), (ConstIntBound{0, 15}));
  EXPECT_EQ(a.bound_of(floormod(i, c(5))), (ConstIntBound{0, 4}));
  EXPECT_EQ(a.bound_of(floormod(i + 16, c(32))), (ConstIntBound{16, 31}));
  EXPECT_EQ(a.bound_of(min(i, c(4))), (ConstIntBound{0, 4}));
  EXPECT_EQ(a.bound_of(max(j, c(-1))), (ConstIntBound{-1, 0}));
  EXPECT_EQ(a.bound_of(select(i < 3, j, i)), (ConstIntBound{-3, 15}));
  EXPECT_EQ(a.bound_of(i < 3), (ConstIntBound{0, 1}));
  Var u("u");
  EXPECT_EQ(a.bound_of(u), ConstIntBound{});
  Expr small = cast(DataType::i8(), i);
  EXPECT_EQ(a.bound_of(small), (ConstIntBound{0, 15}));
  EXPECT_EQ(a.bound_of(cast(DataType::i8(), i * 100)), (ConstIntBound{-128, 127}));
  Var k("k", DataType::i32());
  EXPECT_EQ(a.bound_of(k), (ConstIntBound{INT32_MIN, INT32_MAX}));
  // an int32 result that could overflow widens to the whole int32 range
  EXPECT_EQ(a.bound_of(k + IntImm::make(DataType::i32(), 1)),
            (ConstIntBound{INT32_MIN, INT32_MAX}));
}

TEST(Simplify, AddSubRules) {
  Analyzer a;
  Var x("x"), y("y");
  EXPECT_SIMPLIFIES(x + 0, x, a);
  EXPECT_SIMPLIFIES(c(3) + x, x + 3, a);
  EXPECT_SIMPLIFIES((x + 3) + 4, x + 7, a);
  EXPECT_SIMPLIFIES((x - 3) + 4, x + 1, a);
  EXPECT_SIMPLIFIES((c(3) - x) + 4, c(7) - x, a);
  EXPECT_SIMPLIFIES((x + 3) + y, (x + y) + 3, a);
  EXPECT_SIMPLIFIES(x + (y + 3), (x + y) + 3, a);  // constants float out of nested sums
  EXPECT_SIMPLIFIES(x + (y - 3), (x + y) - 3, a);
  EXPECT_SIMPLIFIES(x + x, x * 2, a);
  EXPECT_SIMPLIFIES(x * 3 + x, x * 4, a);
  EXPECT_SIMPLIFIES(x + x * 3, x * 4, a);
  EXPECT_SIMPLIFIES(x * 3 + x * 5, x * 8, a);
  EXPECT_SIMPLIFIES(x + (y - x), y, a);
  EXPECT_SIMPLIFIES((y - x) + x, y, a);
  EXPECT_SIMPLIFIES(x + (0 - y), x - y, a);
  EXPECT_SIMPLIFIES(floordiv(x, c(8)) * 8 + floormod(x, c(8)), x, a);
  EXPECT_SIMPLIFIES(floormod(x, c(8)) + floordiv(x, c(8)) * 8, x, a);
  EXPECT_SIMPLIFIES(x - 0, x, a);
  EXPECT_SIMPLIFIES(x - x, c(0), a);
  EXPECT_SIMPLIFIES((x + 5) - 2, x + 3, a);
  EXPECT_SIMPLIFIES((x - 5) - 2, x - 7, a);
  EXPECT_SIMPLIFIES(c(5) - (x + 2), c(3) - x, a);
  EXPECT_SIMPLIFIES((x + y) - x, y, a);
  EXPECT_SIMPLIFIES((x + y) - y, x, a);
  EXPECT_SIMPLIFIES(x - (x + y), c(0) - y, a);
  EXPECT_SIMPLIFIES(y - (x + y), c(0) - x, a);
  EXPECT_SIMPLIFIES((x + 5) - (y + 2), (x - y) + 3, a);
  EXPECT_SIMPLIFIES(x * 4 - x, x * 3, a);
  EXPECT_SIMPLIFIES(x - x * 4, x * -3, a);
  EXPECT_SIMPLIFIES(x * 4 - x * 6, x * -2, a);
  // floats: only the IEEE-exact identities
  Var f("f", DataType::f32());
  EXPECT_SIMPLIFIES(f - f32(0), f, a);
  EXPECT_SIMPLIFIES(f + f32(0), f + f32(0), a);
  EXPECT_SIMPLIFIES(f - f, f - f, a);
}

TEST(Simplify, MulDivModRules) {
  Analyzer a;
  Var x("x"), y("y");
  EXPECT_SIMPLIFIES(x * 1, x, a);
  EXPECT_SIMPLIFIES(x * 0, c(0), a);
  EXPECT_SIMPLIFIES(c(3) * x, x * 3, a);
  EXPECT_SIMPLIFIES((x * 3) * 4, x * 12, a);
  EXPECT_SIMPLIFIES((x + 2) * 3, x * 3 + 6, a);
  EXPECT_SIMPLIFIES((x - 2) * 3, x * 3 - 6, a);
  EXPECT_SIMPLIFIES(Div::make(x, c(1)), x, a);
  EXPECT_SIMPLIFIES(Div::make(x * 7, c(7)), x, a);
  EXPECT_SIMPLIFIES(floordiv(x, c(1)), x, a);
  EXPECT_SIMPLIFIES(floordiv(x * 12, c(4)), x * 3, a);
  EXPECT_SIMPLIFIES(floordiv(x * 4, c(12)), floordiv(x, c(3)), a);
  EXPECT_SIMPLIFIES(floordiv(x * 8 + y, c(8)), x + floordiv(y, c(8)), a);
  EXPECT_SIMPLIFIES(floordiv(y + x * 8, c(8)), floordiv(y, c(8)) + x, a);
  EXPECT_SIMPLIFIES(floordiv(x + 16, c(8)), floordiv(x, c(8)) + 2, a);
  EXPECT_SIMPLIFIES(floordiv(floordiv(x, c(4)), c(2)), floordiv(x, c(8)), a);
  EXPECT_SIMPLIFIES(floormod(x, c(1)), c(0), a);
  EXPECT_SIMPLIFIES(floormod(x * 8, c(4)), c(0), a);
  EXPECT_SIMPLIFIES(floormod(x * 8 + y, c(4)), floormod(y, c(4)), a);
  EXPECT_SIMPLIFIES(floormod(y + x * 8, c(4)), floormod(y, c(4)), a);
  EXPECT_SIMPLIFIES(floormod(x + 12, c(4)), floormod(x, c(4)), a);
  EXPECT_SIMPLIFIES(floormod(floormod(x, c(16)), c(4)), floormod(x, c(4)), a);
  // not applicable: divisor does not divide
  EXPECT_SIMPLIFIES(floormod(x + 3, c(4)), floormod(x + 3, c(4)), a);
  EXPECT_SIMPLIFIES(floordiv(x * 3, c(4)), floordiv(x * 3, c(4)), a);
}

TEST(Simplify, DivModSplitByLinearForm) {
  // The index chain of a fused reshape + transpose: j < 3, i < 197, k < 768.
  Analyzer a;
  Var j("j"), i("i"), k("k"), x("x");
  a.bind(j, c(0), c(3));
  a.bind(i, c(0), c(197));
  a.bind(k, c(0), c(768));
  Expr flat = j * 151296 + i * 768 + k;
  EXPECT_SIMPLIFIES(floordiv(flat, c(768)), j * 197 + i, a);
  EXPECT_SIMPLIFIES(floormod(floordiv(flat, c(768)), c(197)), i, a);
  EXPECT_SIMPLIFIES(floormod(flat, c(768)), k, a);
  EXPECT_SIMPLIFIES(floordiv(flat, c(151296)), j, a);
  // A remainder that may leave [0, c) keeps its division; x is unbounded.
  EXPECT_SIMPLIFIES(floordiv(i * 64 + x, c(64)), i + floordiv(x, c(64)), a);
  EXPECT_SIMPLIFIES(floormod(i * 64 + x + 3, c(64)), floormod(x + 3, c(64)), a);
  // Nothing divides and the remainder is not known to be in range: unchanged.
  EXPECT_SIMPLIFIES(floordiv(i * 3 + x, c(64)), floordiv(i * 3 + x, c(64)), a);
}

TEST(Simplify, DivModSplitAtACoarserUnit) {
  // A channel shuffle's flat index: c < 116, h < 28, w < 28 (784 = 28 * 28 pixels per channel)
  // divided by two channels' worth: the pixel part stays below one channel.
  Analyzer a;
  Var ch("ch"), h("h"), w("w"), x("x");
  a.bind(ch, c(0), c(116));
  a.bind(h, c(0), c(28));
  a.bind(w, c(0), c(28));
  Expr flat = ch * 784 + h * 28 + w;
  EXPECT_SIMPLIFIES(floordiv(flat, c(1568)), floordiv(ch, c(2)), a);
  EXPECT_SIMPLIFIES(floormod(flat, c(1568)), floormod(ch, c(2)) * 784 + (h * 28 + w), a);
  EXPECT_SIMPLIFIES(floordiv(flat + 1568, c(1568)), floordiv(ch, c(2)) + 1, a);
  // The pixel part may reach a channel's worth: unchanged.
  EXPECT_SIMPLIFIES(floordiv(ch * 784 + h * 29 + w, c(1568)),
                    floordiv(ch * 784 + h * 29 + w, c(1568)), a);
  EXPECT_SIMPLIFIES(floordiv(ch * 784 + x, c(1568)), floordiv(ch * 784 + x, c(1568)), a);
}

TEST(Simplify, RangeBasedRules) {
  Analyzer a;
  Var i("i"), j("j"), x("x");
  a.bind(i, c(0), c(16));
  a.bind(j, c(0), c(4));
  EXPECT_SIMPLIFIES(floordiv(i, c(16)), c(0), a);
  EXPECT_SIMPLIFIES(floormod(i, c(16)), i, a);
  EXPECT_SIMPLIFIES(floordiv(j * 16 + i, c(16)), j, a);
  EXPECT_SIMPLIFIES(floormod(j * 16 + i, c(16)), i, a);
  EXPECT_SIMPLIFIES(min(i, c(20)), i, a);
  EXPECT_SIMPLIFIES(max(i, c(-1)), i, a);
  EXPECT_SIMPLIFIES(min(i, j + 16), i, a);
  EXPECT_SIMPLIFIES(max(i, j + 16), j + 16, a);
  EXPECT_SIMPLIFIES(i < 16, T(), a);
  EXPECT_SIMPLIFIES(i >= 16, F(), a);
  EXPECT_SIMPLIFIES(i < j + 16, T(), a);
  EXPECT_SIMPLIFIES(i + 1 <= i, F(), a);
  EXPECT_SIMPLIFIES(i == i + 1, F(), a);
  EXPECT_SIMPLIFIES(i != 20, T(), a);
  EXPECT_SIMPLIFIES(select(i < 16, x, x + 1), x, a);
  EXPECT_SIMPLIFIES(select(i > 100, x, x + 1), x + 1, a);
  EXPECT_SIMPLIFIES(i < 8, i < 8, a);  // undecided stays
  EXPECT_SIMPLIFIES(floordiv(i, c(8)), floordiv(i, c(8)), a);
  EXPECT_TRUE(a.can_prove(i * 4 + j < 64));
  EXPECT_FALSE(a.can_prove(i * 4 + j < 63));
  EXPECT_TRUE(a.can_prove(!(i >= 16) && j <= 3));
}

TEST(Simplify, MinMaxCompareLogicRules) {
  Analyzer a;
  Var x("x"), y("y");
  Var p("p", DataType::boolean());
  EXPECT_SIMPLIFIES(min(x, x), x, a);
  EXPECT_SIMPLIFIES(min(c(3), x), min(x, c(3)), a);
  EXPECT_SIMPLIFIES(min(min(x, c(3)), c(5)), min(x, c(3)), a);
  EXPECT_SIMPLIFIES(min(x + 3, x + 5), x + 3, a);
  EXPECT_SIMPLIFIES(min(max(x, y), x), x, a);
  EXPECT_SIMPLIFIES(max(x, x), x, a);
  EXPECT_SIMPLIFIES(max(c(3), x), max(x, c(3)), a);
  EXPECT_SIMPLIFIES(max(max(x, c(3)), c(5)), max(x, c(5)), a);
  EXPECT_SIMPLIFIES(max(x + 3, x + 5), x + 5, a);
  EXPECT_SIMPLIFIES(max(min(x, y), x), x, a);
  EXPECT_SIMPLIFIES(x == x, T(), a);
  EXPECT_SIMPLIFIES(x + 3 == 5, x == 2, a);
  EXPECT_SIMPLIFIES(x != x, F(), a);
  EXPECT_SIMPLIFIES(x + 3 != 5, x != 2, a);
  EXPECT_SIMPLIFIES(x < x, F(), a);
  EXPECT_SIMPLIFIES(x + 3 < 5, x < 2, a);
  EXPECT_SIMPLIFIES(c(5) < x + 3, c(2) < x, a);
  EXPECT_SIMPLIFIES(x <= x, T(), a);
  EXPECT_SIMPLIFIES(x + 3 <= 5, x <= 2, a);
  EXPECT_SIMPLIFIES(c(5) <= x + 3, c(2) <= x, a);
  EXPECT_SIMPLIFIES(x > y, y < x, a);
  EXPECT_SIMPLIFIES(x >= y, y <= x, a);
  EXPECT_SIMPLIFIES(p && T(), p, a);
  EXPECT_SIMPLIFIES(T() && p, p, a);
  EXPECT_SIMPLIFIES(p && F(), F(), a);
  EXPECT_SIMPLIFIES(F() && p, F(), a);
  EXPECT_SIMPLIFIES(p && p, p, a);
  EXPECT_SIMPLIFIES(p && !p, F(), a);
  EXPECT_SIMPLIFIES(!p && p, F(), a);
  EXPECT_SIMPLIFIES(p || F(), p, a);
  EXPECT_SIMPLIFIES(F() || p, p, a);
  EXPECT_SIMPLIFIES(p || T(), T(), a);
  EXPECT_SIMPLIFIES(T() || p, T(), a);
  EXPECT_SIMPLIFIES(p || p, p, a);
  EXPECT_SIMPLIFIES(p || !p, T(), a);
  EXPECT_SIMPLIFIES(!p || p, T(), a);
  EXPECT_SIMPLIFIES(!!p, p, a);
  EXPECT_SIMPLIFIES(!(x == y), x != y, a);
  EXPECT_SIMPLIFIES(!(x != y), x == y, a);
  EXPECT_SIMPLIFIES(!(x < y), y <= x, a);
  EXPECT_SIMPLIFIES(!(x <= y), y < x, a);
  EXPECT_SIMPLIFIES(select(p, x, x), x, a);
  EXPECT_SIMPLIFIES(select(T(), x, y), x, a);
  EXPECT_SIMPLIFIES(select(F(), x, y), y, a);
  // float comparisons are not folded by reflexivity (NaN)
  Var f("f", DataType::f32());
  EXPECT_SIMPLIFIES(f == f, f == f, a);
  EXPECT_SIMPLIFIES(!(f < f32(1)), !(f < f32(1)), a);
}

TEST(Simplify, KeepsInt32Dtype) {
  Var k("k", DataType::i32());
  Expr one = IntImm::make(DataType::i32(), 1);
  Expr got = simplify((k + one) + one);
  EXPECT_TRUE(structural_equal(got, k + IntImm::make(DataType::i32(), 2))) << to_string(got);
}

// Every rule, instantiated with small random values, gives the same value before and after
// whenever its side condition holds: the rule tables are checked against plain arithmetic.
TEST(Simplify, EveryRuleIsSoundOnSmallIntegers) {
  const PatternVars& pv = pattern_vars();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> val(-20, 20), boolv(0, 1);
  NodeTag tags[] = {
      NodeTag::Add, NodeTag::Sub, NodeTag::Mul, NodeTag::Div, NodeTag::FloorDiv, NodeTag::FloorMod,
      NodeTag::Min, NodeTag::Max, NodeTag::EQ,  NodeTag::NE,  NodeTag::LT,       NodeTag::LE,
      NodeTag::GT,  NodeTag::GE,  NodeTag::And, NodeTag::Or,  NodeTag::Not,      NodeTag::Select};
  int rules = 0;
  for (NodeTag tag : tags) {
    for (const RewriteRule& rule : rules_for(tag)) {
      ++rules;
      int checked = 0;
      for (int trial = 0; trial < 400; ++trial) {
        Env env;
        for (const Var& v : {pv.x, pv.y, pv.z, pv.c1, pv.c2, pv.c3}) env[v.node()] = val(rng);
        for (const Var& v : {pv.p, pv.q}) env[v.node()] = boolv(rng);
        if (rule.condition.defined()) {
          auto cond = eval(rule.condition, env);
          if (!cond || !*cond) continue;
        }
        auto before = eval(rule.pattern, env);
        if (!before) continue;  // division by zero
        auto after = eval(rule.result, env);
        ASSERT_TRUE(after.has_value()) << rule.name;
        ASSERT_EQ(*before, *after) << "rule " << rule.name << " at trial " << trial;
        ++checked;
      }
      EXPECT_GT(checked, 0) << "rule " << rule.name << " was never exercised";
    }
  }
  EXPECT_GT(rules, 60);
}

// Random expression trees over bounded variables: simplification preserves every value.
class RandomExpr {
 public:
  RandomExpr(std::mt19937* rng, std::vector<Var> vars) : rng_(*rng), vars_(std::move(vars)) {}
  Expr gen(int depth) {
    int pick = std::uniform_int_distribution<int>(0, depth <= 0 ? 1 : 11)(rng_);
    switch (pick) {
      case 0:
        return vars_[std::uniform_int_distribution<size_t>(0, vars_.size() - 1)(rng_)];
      case 1:
        return c(std::uniform_int_distribution<int64_t>(-8, 8)(rng_));
      case 2:
        return gen(depth - 1) + gen(depth - 1);
      case 3:
        return gen(depth - 1) - gen(depth - 1);
      case 4:
        return gen(depth - 1) * c(std::uniform_int_distribution<int64_t>(-4, 4)(rng_));
      case 5:
        return floordiv(gen(depth - 1), c(std::uniform_int_distribution<int64_t>(1, 8)(rng_)));
      case 6:
        return floormod(gen(depth - 1), c(std::uniform_int_distribution<int64_t>(1, 8)(rng_)));
      case 7:
        return min(gen(depth - 1), gen(depth - 1));
      case 8:
        return max(gen(depth - 1), gen(depth - 1));
      case 9:
        return select(cond(depth - 1), gen(depth - 1), gen(depth - 1));
      case 10:
        return gen(depth - 1) * gen(depth - 1);
      default:
        return floordiv(gen(depth - 1) * c(4) + gen(depth - 1), c(4));
    }
  }
  Expr cond(int depth) {
    Expr a = gen(depth), b = gen(depth);
    switch (std::uniform_int_distribution<int>(0, 5)(rng_)) {
      case 0:
        return a < b;
      case 1:
        return a <= b;
      case 2:
        return a == b;
      case 3:
        return a != b;
      case 4:
        return (a < b) && !(b == a);
      default:
        return (a >= b) || (a > c(2));
    }
  }

 private:
  std::mt19937& rng_;
  std::vector<Var> vars_;
};

TEST(Simplify, RandomExpressionsKeepTheirValue) {
  std::mt19937 rng(12345);
  Var i("i"), j("j"), k("k");
  Analyzer a;
  a.bind(i, c(0), c(16));
  a.bind(j, c(-4), c(8));  // [-4, 3]
  a.bind(k, c(2), c(3));   // [2, 4]
  RandomExpr gen(&rng, {i, j, k});
  int compared = 0;
  for (int n = 0; n < 800; ++n) {
    bool as_cond = n % 4 == 0;
    Expr e = as_cond ? gen.cond(3) : gen.gen(4);
    Expr s = simplify(e, a);
    for (int t = 0; t < 6; ++t) {
      Env env{{i.node(), std::uniform_int_distribution<int64_t>(0, 15)(rng)},
              {j.node(), std::uniform_int_distribution<int64_t>(-4, 3)(rng)},
              {k.node(), std::uniform_int_distribution<int64_t>(2, 4)(rng)}};
      auto before = eval(e, env);
      if (!before) continue;
      auto after = eval(s, env);
      ASSERT_TRUE(after.has_value()) << to_string(e) << " -> " << to_string(s);
      ASSERT_EQ(*before, *after) << to_string(e) << " -> " << to_string(s)
                                 << " at i=" << env[i.node()] << " j=" << env[j.node()]
                                 << " k=" << env[k.node()];
      ++compared;
    }
  }
  EXPECT_GT(compared, 3000);
}

}  // namespace
}  // namespace ingot::tir::arith

namespace ingot::tir::arith {
namespace {

TEST(LinearForm, ComparesIndicesTermByTerm) {
  Var a("a"), i("i"), k("k");
  // (a + i) * 2 + k - (i * 2 + k) = a * 2: the simplifier alone does not expand the product.
  LinearForm d = linear_form((Expr(a) + i) * 2 + k) - linear_form(Expr(i) * 2 + k);
  ASSERT_EQ(d.terms.size(), 1u);
  EXPECT_TRUE(structural_equal(d.terms[0].first, a));
  EXPECT_EQ(d.terms[0].second, 2);
  EXPECT_EQ(d.constant, 0);
  EXPECT_TRUE(structural_equal(d.to_expr(DataType::i64()), Expr(a) * 2));
  // Constants and subtraction; non-linear parts are atoms compared structurally.
  LinearForm e = linear_form(Expr(i) * 3 - 4 + floordiv(k, i64(2)) - i * 3);
  ASSERT_EQ(e.terms.size(), 1u);
  EXPECT_TRUE(structural_equal(e.terms[0].first, floordiv(k, i64(2))));
  EXPECT_EQ(e.constant, -4);
  EXPECT_TRUE(structural_equal(linear_form(Expr(i) - i).to_expr(DataType::i64()), i64(0)));
}

TEST(LinearForm, VarPlusOffset) {
  Var a("a"), i("i"), k("k");
  auto is_i = [&](const VarNode* v) { return v == i.node(); };
  // 1 + (a * 6 + i): the form blockize and vectorize_loops need.
  auto r = var_plus_offset(i64(1) + (Expr(a) * 6 + i), is_i);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->var.same_as(i));
  EXPECT_TRUE(structural_equal(r->offset, Expr(a) * 6 + i64(1))) << to_string(r->offset);
  // Not of the form: scaled, inside another atom, twice, or absent.
  EXPECT_FALSE(var_plus_offset(Expr(i) * 2 + a, is_i).has_value());
  EXPECT_FALSE(var_plus_offset(floordiv(Expr(i), i64(2)) + a, is_i).has_value());
  auto is_i_or_k = [&](const VarNode* v) { return v == i.node() || v == k.node(); };
  EXPECT_FALSE(var_plus_offset(Expr(i) + k, is_i_or_k).has_value());
  EXPECT_FALSE(var_plus_offset(Expr(a) + 3, is_i).has_value());
}

TEST(Simplify, VectorSelectOnAConstantConditionFolds) {
  Expr t = Ramp::make(i64(0), i64(1), 8), f = Broadcast::make(i64(5), 8);
  EXPECT_TRUE(structural_equal(simplify(select(IntImm::make(DataType::boolean(), 1), t, f)), t));
  EXPECT_TRUE(structural_equal(simplify(select(IntImm::make(DataType::boolean(), 0), t, f)), f));
}

}  // namespace
}  // namespace ingot::tir::arith
