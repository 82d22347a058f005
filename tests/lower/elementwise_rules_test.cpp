// Compute rules of the elementwise unary and binary ops against plain reference formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "rule_test_util.h"
#include "support/error.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

struct UnaryCase {
  OpKind op;
  std::function<double(double)> ref;
  double lo, hi;
};

TEST(ElementwiseRules, UnaryFloatOps) {
  std::vector<UnaryCase> cases = {
      {OpKind::Relu, [](double x) { return x > 0 ? x : 0; }, -2, 2},
      {OpKind::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, -4, 4},
      {OpKind::Tanh, [](double x) { return std::tanh(x); }, -3, 3},
      {OpKind::Erf, [](double x) { return std::erf(x); }, -2, 2},
      {OpKind::Exp, [](double x) { return std::exp(x); }, -3, 3},
      {OpKind::Log, [](double x) { return std::log(x); }, 0.1, 5},
      {OpKind::Sqrt, [](double x) { return std::sqrt(x); }, 0, 9},
      {OpKind::Reciprocal, [](double x) { return 1 / x; }, 0.5, 4},
      {OpKind::Neg, [](double x) { return -x; }, -2, 2},
      {OpKind::Abs, [](double x) { return std::fabs(x); }, -2, 2},
      {OpKind::Identity, [](double x) { return x; }, -2, 2},
  };
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(ops::op_name(c.op));
    HostTensor x = random_f32({2, 3, 5}, 7, c.lo, c.hi);
    HostTensor y = run_rule1(make_node(c.op), {&x}, DataType::f32(), {2, 3, 5});
    std::vector<double> want;
    for (double v : x.values()) want.push_back(c.ref(v));
    expect_near_all(y.values(), want, 1e-6);
  }
}

TEST(ElementwiseRules, GeluBothForms) {
  HostTensor x = random_f32({4, 8}, 3, -3, 3);
  HostTensor exact = run_rule1(make_node(OpKind::Gelu), {&x}, DataType::f32(), {4, 8});
  graph::Attrs a;
  a.set("approximate", std::string("tanh"));
  HostTensor approx = run_rule1(make_node(OpKind::Gelu, a), {&x}, DataType::f32(), {4, 8});
  std::vector<double> want_exact, want_tanh;
  for (double v : x.values()) {
    want_exact.push_back(0.5 * v * (1 + std::erf(v / std::sqrt(2.0))));
    want_tanh.push_back(0.5 * v *
                        (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))));
  }
  expect_near_all(exact.values(), want_exact, 1e-6);
  expect_near_all(approx.values(), want_tanh, 1e-6);
  // The two forms really differ somewhere (so each test checks its own formula).
  double diff = 0;
  for (size_t i = 0; i < want_exact.size(); ++i) diff += std::fabs(want_exact[i] - want_tanh[i]);
  EXPECT_GT(diff, 1e-4);
}

TEST(ElementwiseRules, ClipWithOptionalBounds) {
  HostTensor x(DataType::f32(), {6}, {-3, -1, 0, 0.5, 2, 7});
  HostTensor lo(DataType::f32(), {}, {-1.5});
  HostTensor hi(DataType::f32(), {}, {1.0});
  auto both = run_rule1(make_node(OpKind::Clip), {&x, &lo, &hi}, DataType::f32(), {6});
  expect_near_all(both.values(), {-1.5, -1, 0, 0.5, 1, 1});
  auto max_only = run_rule1(make_node(OpKind::Clip), {&x, nullptr, &hi}, DataType::f32(), {6});
  expect_near_all(max_only.values(), {-3, -1, 0, 0.5, 1, 1});
  auto none = run_rule1(make_node(OpKind::Clip), {&x}, DataType::f32(), {6});
  expect_near_all(none.values(), x.values());
}

TEST(ElementwiseRules, CastFloatToIntTruncatesAndToBoolTestsNonZero) {
  HostTensor x(DataType::f32(), {5}, {-2.7, -0.5, 0, 0.25, 3.9});
  graph::Attrs to_int;
  to_int.set("to", int64_t(graph::DType::kI64));
  auto yi = run_rule1(make_node(OpKind::Cast, to_int), {&x}, DataType::i64(), {5});
  expect_near_all(yi.values(), {-2, 0, 0, 0, 3});
  graph::Attrs to_bool;
  to_bool.set("to", int64_t(graph::DType::kBool));
  auto yb = run_rule1(make_node(OpKind::Cast, to_bool), {&x}, DataType::boolean(), {5});
  expect_near_all(yb.values(), {1, 1, 0, 1, 1});
}

TEST(ElementwiseRules, BinaryBroadcasting) {
  // [2,1,4] op [3,1] -> [2,3,4]
  HostTensor a = random_f32({2, 1, 4}, 11, 0.5, 2);
  HostTensor b = random_f32({3, 1}, 12, 0.5, 2);
  std::vector<std::pair<OpKind, std::function<double(double, double)>>> cases = {
      {OpKind::Add, [](double p, double q) { return p + q; }},
      {OpKind::Sub, [](double p, double q) { return p - q; }},
      {OpKind::Mul, [](double p, double q) { return p * q; }},
      {OpKind::Div, [](double p, double q) { return p / q; }},
      {OpKind::Pow, [](double p, double q) { return std::pow(p, q); }},
  };
  for (auto& [op, ref] : cases) {
    SCOPED_TRACE(ops::op_name(op));
    HostTensor y = run_rule1(make_node(op), {&a, &b}, DataType::f32(), {2, 3, 4});
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) want.push_back(ref(a.get(i * 4 + k), b.get(j)));
    expect_near_all(y.values(), want, 1e-6);
  }
}

TEST(ElementwiseRules, IntegerDivTruncatesTowardZero) {
  HostTensor a(DataType::i64(), {6}, {7, -7, 7, -7, 6, -1});
  HostTensor b(DataType::i64(), {6}, {2, 2, -2, -2, 3, 4});
  auto y = run_rule1(make_node(OpKind::Div), {&a, &b}, DataType::i64(), {6});
  expect_near_all(y.values(), {3, -3, -3, 3, 2, 0});
  HostTensor a32(DataType::i32(), {2}, {-9, 9});
  HostTensor b32(DataType::i32(), {}, {4});
  auto y32 = run_rule1(make_node(OpKind::Div), {&a32, &b32}, DataType::i32(), {2});
  expect_near_all(y32.values(), {-2, 2});
}

TEST(ElementwiseRules, IntegerAddAndScalarBroadcast) {
  HostTensor a(DataType::i64(), {2, 2}, {1, 2, 3, 4});
  HostTensor b(DataType::i64(), {}, {10});
  auto y = run_rule1(make_node(OpKind::Add), {&a, &b}, DataType::i64(), {2, 2});
  expect_near_all(y.values(), {11, 12, 13, 14});
}

}  // namespace
}  // namespace ingot::testing
