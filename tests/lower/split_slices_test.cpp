// Split as slices in lower_graph: with every dim before the axis of extent 1, each output of a
// Split of a workspace tensor is a byte range of that tensor and no Split kernel runs; an output
// that is a graph output or lives in a Concat's slice is copied from its range; batch > 1 and a
// graph-input operand keep the Split kernel. Offsets are checked by hand, numbers through the
// loop-IR interpreter against closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "graph/transforms/infer_types.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using graph::Attrs;
using graph::Value;
using ops::OpKind;
using tir::ArgRef;
using tir::DataType;

// x[N,4,3] -> Relu -> r -> Split(axis 1, 1 + 3 channels) -> s0, s1; y0 = Neg(s0), y1 = Exp(s1)
// (or s1 itself as a graph output).
struct SplitNet {
  graph::Graph g;
  Value *x, *r, *s0, *s1;
  explicit SplitNet(int64_t n, bool s1_is_output = false) {
    x = g.add_value("x", f32_type({n, 4, 3}));
    g.inputs = {x};
    r = g.add_node(OpKind::Relu, "r", {x}, {"r"})->outputs[0];
    Attrs a;
    a.set("axis", int64_t(1));
    a.set("split", std::vector<int64_t>{1, 3});
    graph::Node* sp = g.add_node(OpKind::Split, "sp", {r}, {"s0", "s1"}, a);
    s0 = sp->outputs[0], s1 = sp->outputs[1];
    Value* y0 = g.add_node(OpKind::Neg, "y0", {s0}, {"y0"})->outputs[0];
    Value* y1 = s1_is_output ? s1 : g.add_node(OpKind::Exp, "y1", {s1}, {"y1"})->outputs[0];
    g.outputs = {y0, y1};
    graph::infer_types(g);
  }
};

int count_kernels_of(const tir::IRModule& m, const std::string& op) {
  int k = 0;
  for (const tir::PrimFunc& f : m.kernels)
    if (!f.source_ops.empty() && f.source_ops[0].rfind(op, 0) == 0) ++k;
  return k;
}

std::vector<double> expected(const HostTensor& x, int64_t n, bool exp_second) {
  std::vector<double> y0, y1;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t i = 0; i < 3; ++i) {
        double r = std::max(x.get(size_t((b * 4 + c) * 3 + i)), 0.0);
        if (c == 0)
          y0.push_back(-r);
        else
          y1.push_back(exp_second ? std::exp(r) : r);
      }
  y0.insert(y0.end(), y1.begin(), y1.end());
  return y0;
}

TEST(SplitSlices, BatchOneSplitHasNoKernel) {
  SplitNet net(1);
  tir::IRModule m = lower::lower_graph(net.g);
  EXPECT_EQ(count_kernels_of(m, "Split"), 0);
  ASSERT_EQ(m.kernels.size(), 3u);  // Relu, Neg, Exp
  const ArgRef r = kernel_call(m, "r_Relu").args[1];
  const ArgRef s0 = kernel_call(m, "y0_Neg").args[0], s1 = kernel_call(m, "y1_Exp").args[0];
  ASSERT_EQ(r.kind, ArgRef::kWorkspace);
  EXPECT_EQ(s0.value, r.value);
  EXPECT_EQ(s1.value, r.value + 3 * 4);  // after s0's 3 floats
  HostTensor tx = random_f32({1, 4, 3}, 1);
  HostTensor y0(DataType::f32(), {1, 1, 3}), y1(DataType::f32(), {1, 3, 3});
  run_module(m, {&tx}, {&y0, &y1});
  std::vector<double> got = y0.values(), rest = y1.values();
  got.insert(got.end(), rest.begin(), rest.end());
  expect_near_all(got, expected(tx, 1, true), 1e-6);
}

TEST(SplitSlices, GraphOutputIsCopiedFromItsRange) {
  SplitNet net(1, /*s1_is_output=*/true);
  tir::IRModule m = lower::lower_graph(net.g);
  EXPECT_EQ(count_kernels_of(m, "Split"), 1);  // the copy of s1 into the output
  HostTensor tx = random_f32({1, 4, 3}, 2);
  HostTensor y0(DataType::f32(), {1, 1, 3}), y1(DataType::f32(), {1, 3, 3});
  run_module(m, {&tx}, {&y0, &y1});
  std::vector<double> got = y0.values(), rest = y1.values();
  got.insert(got.end(), rest.begin(), rest.end());
  expect_near_all(got, expected(tx, 1, false), 1e-6);
}

TEST(SplitSlices, BatchOfTwoKeepsTheKernel) {
  SplitNet net(2);
  tir::IRModule m = lower::lower_graph(net.g);
  EXPECT_EQ(count_kernels_of(m, "Split"), 1);
  HostTensor tx = random_f32({2, 4, 3}, 3);
  HostTensor y0(DataType::f32(), {2, 1, 3}), y1(DataType::f32(), {2, 3, 3});
  run_module(m, {&tx}, {&y0, &y1});
  std::vector<double> want0, want1;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < 4; ++c)
      for (int64_t i = 0; i < 3; ++i) {
        double r = std::max(tx.get(size_t((b * 4 + c) * 3 + i)), 0.0);
        (c == 0 ? want0 : want1).push_back(c == 0 ? -r : std::exp(r));
      }
  expect_near_all(y0.values(), want0, 1e-6);
  expect_near_all(y1.values(), want1, 1e-6);
}

}  // namespace
}  // namespace ingot::testing
