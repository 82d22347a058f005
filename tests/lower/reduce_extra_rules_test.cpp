// Compute rules of the Reduce* family beyond Sum/Mean, ArgMax/ArgMin, LogSoftmax, Hardmax and
// LayerNormalization's optional Mean / InvStdDev outputs, against plain reference loops.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

graph::Attrs reduce_attrs(std::vector<int64_t> axes, int64_t keepdims) {
  graph::Attrs a;
  a.set("axes", axes);
  a.set("keepdims", keepdims);
  return a;
}

TEST(ReduceExtraRules, EachCombinerOverTheMiddleAxis) {
  // [2,3,4] reduced over axis 1 -> [2,4] (keepdims 0).
  HostTensor x = random_f32({2, 3, 4}, 31, 0.2, 2.0);
  using Fold = std::function<double(const std::vector<double>&)>;
  auto sum = [](const std::vector<double>& v, double (*f)(double)) {
    double s = 0;
    for (double e : v) s += f(e);
    return s;
  };
  std::vector<std::pair<OpKind, Fold>> cases = {
      {OpKind::ReduceMax, [](auto& v) { return *std::max_element(v.begin(), v.end()); }},
      {OpKind::ReduceMin, [](auto& v) { return *std::min_element(v.begin(), v.end()); }},
      {OpKind::ReduceProd,
       [](auto& v) {
         double p = 1;
         for (double e : v) p *= e;
         return p;
       }},
      {OpKind::ReduceL1, [&](auto& v) { return sum(v, [](double e) { return std::fabs(e); }); }},
      {OpKind::ReduceL2,
       [&](auto& v) { return std::sqrt(sum(v, [](double e) { return e * e; })); }},
      {OpKind::ReduceSumSquare, [&](auto& v) { return sum(v, [](double e) { return e * e; }); }},
      {OpKind::ReduceLogSum, [&](auto& v) { return std::log(sum(v, [](double e) { return e; })); }},
      {OpKind::ReduceLogSumExp,
       [&](auto& v) { return std::log(sum(v, [](double e) { return std::exp(e); })); }},
  };
  for (auto& [op, fold] : cases) {
    SCOPED_TRACE(ops::op_name(op));
    HostTensor y = run_rule1(make_node(op, reduce_attrs({1}, 0)), {&x}, DataType::f32(), {2, 4});
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        std::vector<double> slice;
        for (int j = 0; j < 3; ++j) slice.push_back(x.get(i * 12 + j * 4 + k));
        want.push_back(fold(slice));
      }
    expect_near_all(y.values(), want, 1e-5);
  }
}

TEST(ReduceExtraRules, LogSumExpIsStableForLargeInputs) {
  HostTensor x(DataType::f32(), {3}, {1000, 1000, 999});
  HostTensor y = run_rule1(make_node(OpKind::ReduceLogSumExp, reduce_attrs({}, 1)), {&x},
                           DataType::f32(), {1});
  double want = 1000 + std::log(2 + std::exp(-1.0));
  expect_near_all(y.values(), {want}, 1e-3);
}

TEST(ReduceExtraRules, IntegerMaxMinAndAllAxes) {
  HostTensor x(DataType::i64(), {2, 2}, {3, -7, 9, 0});
  expect_near_all(
      run_rule1(make_node(OpKind::ReduceMax, reduce_attrs({}, 0)), {&x}, DataType::i64(), {})
          .values(),
      {9}, 0);
  expect_near_all(
      run_rule1(make_node(OpKind::ReduceMin, reduce_attrs({0}, 1)), {&x}, DataType::i64(), {1, 2})
          .values(),
      {3, -7}, 0);
}

TEST(ReduceExtraRules, BoolMaxIsAnyAndMinIsAll) {
  HostTensor x(DataType::boolean(), {2, 3}, {1, 0, 0, 1, 1, 0});
  auto run = [&](OpKind op, std::vector<int64_t> axes, std::vector<int64_t> shape) {
    return run_rule1(make_node(op, reduce_attrs(axes, 0)), {&x}, DataType::boolean(), shape)
        .values();
  };
  expect_near_all(run(OpKind::ReduceMax, {1}, {2}), {1, 1}, 0);
  expect_near_all(run(OpKind::ReduceMin, {1}, {2}), {0, 0}, 0);
  // Over the outer axis (the kept last axis runs in lanes).
  expect_near_all(run(OpKind::ReduceMax, {0}, {3}), {1, 1, 0}, 0);
  expect_near_all(run(OpKind::ReduceMin, {0}, {3}), {1, 0, 0}, 0);
}

TEST(ArgRules, FirstAndLastIndexOfTies) {
  HostTensor x(DataType::f32(), {2, 4}, {1, 5, 5, 0, 2, 2, -1, -1});
  auto run = [&](OpKind op, int64_t axis, int64_t keepdims, int64_t last,
                 std::vector<int64_t> shape) {
    graph::Attrs a;
    a.set("axis", axis);
    a.set("keepdims", keepdims);
    a.set("select_last_index", last);
    return run_rule1(make_node(op, a), {&x}, DataType::i64(), shape).values();
  };
  expect_near_all(run(OpKind::ArgMax, 1, 1, 0, {2, 1}), {1, 0}, 0);
  expect_near_all(run(OpKind::ArgMax, 1, 0, 1, {2}), {2, 1}, 0);
  expect_near_all(run(OpKind::ArgMin, 1, 0, 0, {2}), {3, 2}, 0);
  expect_near_all(run(OpKind::ArgMin, 1, 0, 1, {2}), {3, 3}, 0);
  expect_near_all(run(OpKind::ArgMax, 0, 0, 0, {4}), {1, 0, 0, 0}, 0);
}

TEST(SoftmaxVariantRules, LogSoftmaxAndHardmaxAlongAxis) {
  HostTensor x = random_f32({2, 3, 4}, 41, -3, 3);
  graph::Attrs a;
  a.set("axis", int64_t(1));
  HostTensor ls = run_rule1(make_node(OpKind::LogSoftmax, a), {&x}, DataType::f32(), {2, 3, 4});
  HostTensor hm = run_rule1(make_node(OpKind::Hardmax, a), {&x}, DataType::f32(), {2, 3, 4});
  std::vector<double> want_ls(24), want_hm(24);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) {
      double s = 0;
      int best = 0;
      for (int j = 0; j < 3; ++j) {
        s += std::exp(x.get(i * 12 + j * 4 + k));
        if (x.get(i * 12 + j * 4 + k) > x.get(i * 12 + best * 4 + k)) best = j;
      }
      for (int j = 0; j < 3; ++j) {
        want_ls[i * 12 + j * 4 + k] = x.get(i * 12 + j * 4 + k) - std::log(s);
        want_hm[i * 12 + j * 4 + k] = j == best ? 1 : 0;
      }
    }
  expect_near_all(ls.values(), want_ls, 1e-5);
  expect_near_all(hm.values(), want_hm, 0);
  // Ties: only the first maximum is set.
  HostTensor t(DataType::f32(), {1, 3}, {2, 2, 1});
  expect_near_all(run_rule1(make_node(OpKind::Hardmax, a), {&t}, DataType::f32(), {1, 3}).values(),
                  {1, 0, 0}, 0);
}

TEST(NormExtraRules, LayerNormMeanAndInvStdDevOutputs) {
  HostTensor x = random_f32({3, 2, 4}, 51, -2, 3);
  HostTensor s = random_f32({4}, 52);
  graph::Attrs a;
  a.set("axis", int64_t(-1));
  a.set("epsilon", 1e-5);
  std::vector<HostTensor> outs =
      run_rule(make_node(OpKind::LayerNormalization, a), {&x, &s},
               {HostTensor(DataType::f32(), {3, 2, 4}), HostTensor(DataType::f32(), {3, 2, 1}),
                HostTensor(DataType::f32(), {3, 2, 1})});
  std::vector<double> want_mean, want_isd;
  for (int o = 0; o < 6; ++o) {
    double mean = 0, var = 0;
    for (int i = 0; i < 4; ++i) mean += x.get(o * 4 + i) / 4;
    for (int i = 0; i < 4; ++i) var += (x.get(o * 4 + i) - mean) * (x.get(o * 4 + i) - mean) / 4;
    want_mean.push_back(mean);
    want_isd.push_back(1 / std::sqrt(var + 1e-5));
  }
  expect_near_all(outs[1].values(), want_mean, 1e-5);
  expect_near_all(outs[2].values(), want_isd, 1e-4);
}

}  // namespace
}  // namespace ingot::testing
