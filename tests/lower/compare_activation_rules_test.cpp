// Compute rules of the comparison/logic ops, Where, IsNaN/IsInf, the variadic elementwise ops,
// Mod, BitShift, Sign/rounding/trigonometric math and the activations, against plain reference
// loops.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "rule_test_util.h"
#include "support/error.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

TEST(CompareLogicRules, ComparisonsBroadcastToBool) {
  HostTensor a(DataType::f32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor b(DataType::f32(), {3}, {2, 2, 5});
  std::vector<std::pair<OpKind, std::function<bool(double, double)>>> cases = {
      {OpKind::Equal, [](double p, double q) { return p == q; }},
      {OpKind::Less, [](double p, double q) { return p < q; }},
      {OpKind::LessOrEqual, [](double p, double q) { return p <= q; }},
      {OpKind::Greater, [](double p, double q) { return p > q; }},
      {OpKind::GreaterOrEqual, [](double p, double q) { return p >= q; }},
  };
  for (auto& [op, ref] : cases) {
    SCOPED_TRACE(ops::op_name(op));
    HostTensor y = run_rule1(make_node(op), {&a, &b}, DataType::boolean(), {2, 3});
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(ref(a.get(i * 3 + j), b.get(j)) ? 1 : 0);
    expect_near_all(y.values(), want, 0);
  }
  HostTensor ia(DataType::i32(), {3}, {-1, 0, 7});
  HostTensor ib(DataType::i32(), {}, {0});
  expect_near_all(
      run_rule1(make_node(OpKind::Greater), {&ia, &ib}, DataType::boolean(), {3}).values(),
      {0, 0, 1}, 0);
}

TEST(CompareLogicRules, LogicTruthTables) {
  HostTensor a(DataType::boolean(), {4}, {0, 0, 1, 1});
  HostTensor b(DataType::boolean(), {4}, {0, 1, 0, 1});
  auto run = [&](OpKind op) {
    return run_rule1(make_node(op), {&a, &b}, DataType::boolean(), {4}).values();
  };
  expect_near_all(run(OpKind::And), {0, 0, 0, 1}, 0);
  expect_near_all(run(OpKind::Or), {0, 1, 1, 1}, 0);
  expect_near_all(run(OpKind::Xor), {0, 1, 1, 0}, 0);
  expect_near_all(run_rule1(make_node(OpKind::Not), {&a}, DataType::boolean(), {4}).values(),
                  {1, 1, 0, 0}, 0);
}

TEST(CompareLogicRules, WhereBroadcastsThreeWays) {
  HostTensor c(DataType::boolean(), {2, 1}, {1, 0});
  HostTensor x(DataType::i64(), {3}, {1, 2, 3});
  HostTensor y(DataType::i64(), {}, {-5});
  auto out = run_rule1(make_node(OpKind::Where), {&c, &x, &y}, DataType::i64(), {2, 3});
  expect_near_all(out.values(), {1, 2, 3, -5, -5, -5}, 0);
}

TEST(CompareLogicRules, IsNaNAndIsInfDetectionFlags) {
  double inf = std::numeric_limits<double>::infinity();
  HostTensor x(DataType::f32(), {5}, {1, NAN, inf, -inf, 0});
  expect_near_all(run_rule1(make_node(OpKind::IsNaN), {&x}, DataType::boolean(), {5}).values(),
                  {0, 1, 0, 0, 0}, 0);
  expect_near_all(run_rule1(make_node(OpKind::IsInf), {&x}, DataType::boolean(), {5}).values(),
                  {0, 0, 1, 1, 0}, 0);
  graph::Attrs pos_only;
  pos_only.set("detect_negative", int64_t(0));
  expect_near_all(
      run_rule1(make_node(OpKind::IsInf, pos_only), {&x}, DataType::boolean(), {5}).values(),
      {0, 0, 1, 0, 0}, 0);
  graph::Attrs neg_only;
  neg_only.set("detect_positive", int64_t(0));
  expect_near_all(
      run_rule1(make_node(OpKind::IsInf, neg_only), {&x}, DataType::boolean(), {5}).values(),
      {0, 0, 0, 1, 0}, 0);
}

TEST(ElementwiseExtraRules, VariadicOpsBroadcast) {
  HostTensor a = random_f32({2, 1}, 3);
  HostTensor b = random_f32({3}, 4);
  HostTensor c = random_f32({2, 3}, 5);
  std::vector<std::pair<OpKind, std::function<double(double, double, double)>>> cases = {
      {OpKind::Max,
       [](double p, double q, double r) {
         return std::max({p, q, r});
       }},
      {OpKind::Min,
       [](double p, double q, double r) {
         return std::min({p, q, r});
       }},
      {OpKind::Sum, [](double p, double q, double r) { return p + q + r; }},
      {OpKind::Mean, [](double p, double q, double r) { return (p + q + r) / 3; }},
  };
  for (auto& [op, ref] : cases) {
    SCOPED_TRACE(ops::op_name(op));
    HostTensor y = run_rule1(make_node(op), {&a, &b, &c}, DataType::f32(), {2, 3});
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(ref(a.get(i), b.get(j), c.get(i * 3 + j)));
    expect_near_all(y.values(), want, 1e-6);
  }
  HostTensor one = random_f32({4}, 6);
  expect_near_all(run_rule1(make_node(OpKind::Sum), {&one}, DataType::f32(), {4}).values(),
                  one.values(), 0);
}

TEST(ElementwiseExtraRules, ModSignConventions) {
  HostTensor a(DataType::i32(), {4}, {7, -7, 7, -7});
  HostTensor b(DataType::i32(), {4}, {3, 3, -3, -3});
  // fmod=0: the result takes the divisor's sign (Python %); fmod=1: the dividend's (C fmod).
  expect_near_all(run_rule1(make_node(OpKind::Mod), {&a, &b}, DataType::i32(), {4}).values(),
                  {1, 2, -2, -1}, 0);
  graph::Attrs fmod;
  fmod.set("fmod", int64_t(1));
  expect_near_all(run_rule1(make_node(OpKind::Mod, fmod), {&a, &b}, DataType::i32(), {4}).values(),
                  {1, -1, 1, -1}, 0);
  HostTensor fa(DataType::f32(), {3}, {5.5, -5.5, 5.5});
  HostTensor fb(DataType::f32(), {3}, {2, 2, -2});
  expect_near_all(
      run_rule1(make_node(OpKind::Mod, fmod), {&fa, &fb}, DataType::f32(), {3}).values(),
      {1.5, -1.5, 1.5}, 1e-6);
  // fmod=0 on floats: numpy.mod (the divisor's sign).
  expect_near_all(run_rule1(make_node(OpKind::Mod), {&fa, &fb}, DataType::f32(), {3}).values(),
                  {1.5, 0.5, -0.5}, 1e-6);
}

TEST(ElementwiseExtraRules, BitwiseOpsSignedAndUnsigned) {
  // int16 with negative values (two's complement) broadcast against a row; uint8 with the top bit.
  std::vector<int16_t> a16 = {-1, -32768, 12345, 0, -300, 7}, b16 = {0x0F0F, -2, 255};
  std::vector<uint8_t> a8 = {0, 255, 0x81, 0x3C}, b8 = {0xFF, 0x0F, 0x80, 0xC3};
  auto vals = [](const auto& v) { return std::vector<double>(v.begin(), v.end()); };
  HostTensor x(DataType{DataType::kInt, 16, 1}, {2, 3}, vals(a16));
  HostTensor y(DataType{DataType::kInt, 16, 1}, {3}, vals(b16));
  HostTensor p(DataType::u8(), {4}, vals(a8)), q(DataType::u8(), {4}, vals(b8));
  for (OpKind op : {OpKind::BitwiseAnd, OpKind::BitwiseOr, OpKind::BitwiseXor}) {
    auto f = [&](auto u, auto v) -> double {
      return op == OpKind::BitwiseAnd ? (u & v) : op == OpKind::BitwiseOr ? (u | v) : (u ^ v);
    };
    std::vector<double> want16, want8;
    for (int i = 0; i < 6; ++i) want16.push_back(int16_t(f(a16[i], b16[i % 3])));
    for (int i = 0; i < 4; ++i) want8.push_back(uint8_t(f(a8[i], b8[i])));
    expect_near_all(
        run_rule1(make_node(op), {&x, &y}, DataType{DataType::kInt, 16, 1}, {2, 3}).values(),
        want16, 0);
    expect_near_all(run_rule1(make_node(op), {&p, &q}, DataType::u8(), {4}).values(), want8, 0);
  }
  std::vector<double> not16, not8;
  for (int16_t v : a16) not16.push_back(int16_t(~v));
  for (uint8_t v : a8) not8.push_back(uint8_t(~v));
  expect_near_all(
      run_rule1(make_node(OpKind::BitwiseNot), {&x}, DataType{DataType::kInt, 16, 1}, {2, 3})
          .values(),
      not16, 0);
  expect_near_all(run_rule1(make_node(OpKind::BitwiseNot), {&p}, DataType::u8(), {4}).values(),
                  not8, 0);
}

TEST(ElementwiseExtraRules, BitShiftUint8) {
  HostTensor x(DataType::u8(), {4}, {16, 4, 1, 255});
  HostTensor y(DataType::u8(), {4}, {1, 2, 3, 1});
  graph::Attrs left, right;
  left.set("direction", std::string("LEFT"));
  right.set("direction", std::string("RIGHT"));
  expect_near_all(
      run_rule1(make_node(OpKind::BitShift, left), {&x, &y}, DataType::u8(), {4}).values(),
      {32, 16, 8, 254}, 0);
  expect_near_all(
      run_rule1(make_node(OpKind::BitShift, right), {&x, &y}, DataType::u8(), {4}).values(),
      {8, 1, 0, 127}, 0);
  // Signed right shifts are arithmetic.
  HostTensor sx(DataType::i32(), {2}, {-16, 16});
  HostTensor sy(DataType::i32(), {2}, {2, 2});
  expect_near_all(
      run_rule1(make_node(OpKind::BitShift, right), {&sx, &sy}, DataType::i32(), {2}).values(),
      {-4, 4}, 0);
  // Out-of-range shift amounts: 0, or the sign fill for signed right shifts.
  HostTensor bx(DataType::i8(), {4}, {-8, 4, -1, -8});
  HostTensor by(DataType::i8(), {4}, {8, -1, 100, 7});
  expect_near_all(
      run_rule1(make_node(OpKind::BitShift, right), {&bx, &by}, DataType::i8(), {4}).values(),
      {-1, 0, -1, -1}, 0);
  expect_near_all(
      run_rule1(make_node(OpKind::BitShift, left), {&bx, &by}, DataType::i8(), {4}).values(),
      {0, 0, 0, 0}, 0);
}

TEST(ElementwiseExtraRules, SignAndRoundingTiesToEven) {
  HostTensor x(DataType::f32(), {7}, {-2.5, -1.5, -0.5, 0, 0.5, 1.5, 2.7});
  auto run = [&](OpKind op) {
    return run_rule1(make_node(op), {&x}, DataType::f32(), {7}).values();
  };
  expect_near_all(run(OpKind::Round), {-2, -2, -0, 0, 0, 2, 3}, 0);
  expect_near_all(run(OpKind::Floor), {-3, -2, -1, 0, 0, 1, 2}, 0);
  expect_near_all(run(OpKind::Ceil), {-2, -1, -0, 0, 1, 2, 3}, 0);
  expect_near_all(run(OpKind::Sign), {-1, -1, -1, 0, 1, 1, 1}, 0);
  HostTensor xi(DataType::i64(), {3}, {-4, 0, 9});
  expect_near_all(run_rule1(make_node(OpKind::Sign), {&xi}, DataType::i64(), {3}).values(),
                  {-1, 0, 1}, 0);
}

struct MathCase {
  OpKind op;
  double (*ref)(double);
  double lo, hi;
};

TEST(ElementwiseExtraRules, TrigAndHyperbolicMatchLibm) {
  std::vector<MathCase> cases = {
      {OpKind::Sin, std::sin, -4, 4},           {OpKind::Cos, std::cos, -4, 4},
      {OpKind::Tan, std::tan, -1.4, 1.4},       {OpKind::Asin, std::asin, -1, 1},
      {OpKind::Acos, std::acos, -1, 1},         {OpKind::Atan, std::atan, -20, 20},
      {OpKind::Sinh, std::sinh, -3, 3},         {OpKind::Cosh, std::cosh, -3, 3},
      {OpKind::Asinh, std::asinh, -30, 30},     {OpKind::Acosh, std::acosh, 1, 30},
      {OpKind::Atanh, std::atanh, -0.99, 0.99},
  };
  for (const MathCase& c : cases) {
    SCOPED_TRACE(ops::op_name(c.op));
    HostTensor x = random_f32({64}, 9, c.lo, c.hi);
    // Exact endpoints and small values too (range reduction branches, asin/acos at +-1).
    x.set(0, c.lo);
    x.set(1, c.hi);
    x.set(2, (c.lo + c.hi) / 2 + 1e-3);
    HostTensor y = run_rule1(make_node(c.op), {&x}, DataType::f32(), {64});
    std::vector<double> got = y.values(), want;
    for (double v : x.values()) want.push_back(c.ref(v));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 2e-6 * std::max(1.0, std::fabs(want[i])))
          << "x=" << x.get(int64_t(i));
  }
}

TEST(ActivationRules, MatchReferenceFormulas) {
  struct Case {
    OpKind op;
    graph::Attrs attrs;
    std::function<double(double)> ref;
  };
  auto attrs = [](std::vector<std::pair<const char*, double>> kv) {
    graph::Attrs a;
    for (auto& [k, v] : kv) a.set(k, v);
    return a;
  };
  double sa = 1.67326319217681884765625, sg = 1.05070102214813232421875;
  std::vector<Case> cases = {
      {OpKind::LeakyRelu, attrs({{"alpha", 0.1}}), [](double x) { return x < 0 ? 0.1 * x : x; }},
      {OpKind::Elu, attrs({{"alpha", 2.0}}),
       [](double x) { return x < 0 ? 2 * (std::exp(x) - 1) : x; }},
      {OpKind::Selu, {}, [=](double x) { return x > 0 ? sg * x : sg * (sa * std::exp(x) - sa); }},
      {OpKind::Celu, attrs({{"alpha", 2.0}}),
       [](double x) { return std::max(0.0, x) + std::min(0.0, 2 * (std::exp(x / 2) - 1)); }},
      {OpKind::HardSigmoid, attrs({{"alpha", 0.5}, {"beta", 0.6}}),
       [](double x) { return std::max(0.0, std::min(1.0, 0.5 * x + 0.6)); }},
      {OpKind::HardSwish,
       {},
       [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); }},
      {OpKind::Softplus, {}, [](double x) { return std::log1p(std::exp(x)); }},
      {OpKind::Softsign, {}, [](double x) { return x / (1 + std::fabs(x)); }},
      {OpKind::Mish, {}, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }},
      {OpKind::ThresholdedRelu, attrs({{"alpha", 0.5}}), [](double x) { return x > 0.5 ? x : 0; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(ops::op_name(c.op));
    HostTensor x = random_f32({3, 20}, 13, -5, 5);
    HostTensor y = run_rule1(make_node(c.op, c.attrs), {&x}, DataType::f32(), {3, 20});
    std::vector<double> want;
    for (double v : x.values()) want.push_back(c.ref(v));
    expect_near_all(y.values(), want, 2e-6);
  }
}

TEST(ActivationRules, PReluSlopeBroadcasts) {
  HostTensor x = random_f32({2, 3, 2}, 21, -2, 2);
  HostTensor slope(DataType::f32(), {3, 1}, {0.1, 0.2, 0.3});
  HostTensor y = run_rule1(make_node(OpKind::PRelu), {&x, &slope}, DataType::f32(), {2, 3, 2});
  std::vector<double> want;
  for (int i = 0; i < 12; ++i) {
    double v = x.get(i);
    want.push_back(v < 0 ? v * slope.get((i / 2) % 3) : v);
  }
  expect_near_all(y.values(), want, 1e-6);
}

}  // namespace
}  // namespace ingot::testing
