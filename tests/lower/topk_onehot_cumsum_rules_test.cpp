// Compute rules of TopK (sorted, ties in index order), OneHot (negative and out-of-range
// indices) and CumSum (exclusive, reverse, run-time axis) against hand-computed values.
#include <gtest/gtest.h>

#include <string>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

TEST(TopKRules, LargestAndSmallestWithTies) {
  HostTensor x(DataType::f32(), {2, 5}, {3, 1, 3, 5, 1, 0, -2, 7, 7, 4});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  a.set("k", int64_t(3));
  std::vector<HostTensor> out =
      run_rule(make_node(OpKind::TopK, a), {&x},
               {HostTensor(DataType::f32(), {2, 3}), HostTensor(DataType::i64(), {2, 3})});
  expect_near_all(out[0].values(), {5, 3, 3, 7, 7, 4});
  expect_near_all(out[1].values(), {3, 0, 2, 2, 3, 4});
  a.set("largest", int64_t(0));
  out = run_rule(make_node(OpKind::TopK, a), {&x},
                 {HostTensor(DataType::f32(), {2, 3}), HostTensor(DataType::i64(), {2, 3})});
  expect_near_all(out[0].values(), {1, 1, 3, -2, 0, 4});
  expect_near_all(out[1].values(), {1, 4, 0, 1, 0, 4});
}

TEST(TopKRules, AlongTheFirstAxis) {
  HostTensor x(DataType::i64(), {3, 2}, {1, 9, 8, 2, 5, 5});
  graph::Attrs a;
  a.set("axis", int64_t(0));
  a.set("k", int64_t(2));
  std::vector<HostTensor> out =
      run_rule(make_node(OpKind::TopK, a), {&x},
               {HostTensor(DataType::i64(), {2, 2}), HostTensor(DataType::i64(), {2, 2})});
  expect_near_all(out[0].values(), {8, 9, 5, 5});
  expect_near_all(out[1].values(), {1, 0, 2, 2});
}

TEST(OneHotRules, AxisNegativeAndOutOfRange) {
  HostTensor idx(DataType::i64(), {3}, {1, -1, 4});  // -1 -> 2; 4 matches nothing
  HostTensor values(DataType::f32(), {2}, {-3, 5});
  graph::Attrs a;
  a.set("axis", int64_t(0));
  a.set("depth", 3.0);
  HostTensor y =
      run_rule1(make_node(OpKind::OneHot, a), {&idx, nullptr, &values}, DataType::f32(), {3, 3});
  // y[d][i] = on where d == idx[i]
  expect_near_all(y.values(), {-3, -3, -3, 5, -3, -3, -3, 5, -3});
  HostTensor fidx(DataType::f32(), {2}, {0, 2});
  a.set("axis", int64_t(1));
  HostTensor z =
      run_rule1(make_node(OpKind::OneHot, a), {&fidx, nullptr, &values}, DataType::f32(), {2, 3});
  expect_near_all(z.values(), {5, -3, -3, -3, -3, 5});
}

TEST(CumSumRules, ExclusiveReverseAndRunTimeAxis) {
  HostTensor x(DataType::i32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  auto run = [&](int64_t axis, int ex, int rev) {
    graph::Attrs a;
    a.set("axis", axis);
    a.set("exclusive", int64_t(ex));
    a.set("reverse", int64_t(rev));
    return run_rule1(make_node(OpKind::CumSum, a), {&x}, DataType::i32(), {2, 3}).values();
  };
  expect_near_all(run(1, 0, 0), {1, 3, 6, 4, 9, 15});
  expect_near_all(run(1, 1, 0), {0, 1, 3, 0, 4, 9});
  expect_near_all(run(1, 0, 1), {6, 5, 3, 15, 11, 6});
  expect_near_all(run(1, 1, 1), {5, 3, 0, 11, 6, 0});
  expect_near_all(run(0, 0, 0), {1, 2, 3, 5, 7, 9});
  // axis given at run time as a scalar input: -2 is axis 0.
  HostTensor axis(DataType::i64(), {}, {-2});
  HostTensor y = run_rule1(make_node(OpKind::CumSum), {&x, &axis}, DataType::i32(), {2, 3});
  expect_near_all(y.values(), {1, 2, 3, 5, 7, 9});
}

}  // namespace
}  // namespace ingot::testing
