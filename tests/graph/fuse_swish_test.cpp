// fuse_swish (Mul(x, Sigmoid(x)) -> Swish) and fuse_epilogue's one-input activations (Swish,
// HardSwish, LeakyRelu with its alpha, ...) on small graphs, IR before/after. Numbers of the
// fused epilogues: tests/lower/fused_conv_test.cpp.
#include <gtest/gtest.h>

#include "graph/transforms/fuse_epilogue.h"
#include "graph/transforms/fuse_swish.h"
#include "graph/transforms/rewrite_util.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;

TEST(FuseSwish, BothOperandOrders) {
  for (bool sigmoid_first : {false, true}) {
    Graph g;
    Value* x = g.add_value("x", F32({2, 8}));
    g.inputs = {x};
    Value* s = g.add_node(OpKind::Sigmoid, "sig", {x}, {"s"})->outputs[0];
    std::vector<Value*> ins = sigmoid_first ? std::vector<Value*>{s, x} : std::vector<Value*>{x, s};
    g.outputs = {g.add_node(OpKind::Mul, "mul", ins, {"y"})->outputs[0]};
    infer_types(g);
    fuse_swish(g);
    verify_graph(g);
    ASSERT_EQ(g.nodes().size(), 1u);
    const Node& n = *g.nodes()[0];
    EXPECT_EQ(n.op, OpKind::Swish);
    EXPECT_EQ(n.inputs[0], x);
    EXPECT_EQ(n.attrs.get_float("alpha", 0), 1.0);
    EXPECT_EQ(g.outputs[0]->name, "y");
  }
}

TEST(FuseSwish, OtherOperandOrSharedSigmoidStays) {
  Graph g;
  Value* x = g.add_value("x", F32({4}));
  Value* z = g.add_value("z", F32({4}));
  g.inputs = {x, z};
  Value* s = g.add_node(OpKind::Sigmoid, "sig", {x}, {"s"})->outputs[0];
  Value* a = g.add_node(OpKind::Mul, "gate", {z, s}, {"a"})->outputs[0];  // z * sigmoid(x)
  Value* s2 = g.add_node(OpKind::Sigmoid, "sig2", {x}, {"s2"})->outputs[0];
  Value* b = g.add_node(OpKind::Mul, "mul2", {x, s2}, {"b"})->outputs[0];
  g.outputs = {a, b, s2};  // s2 is read outside the pattern
  infer_types(g);
  fuse_swish(g);
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::Swish), 0);
  EXPECT_EQ(count_ops(g, OpKind::Mul), 2);
}

// x[1,4,5,5] -> Conv 1x1 -> act, fused by fuse_epilogue.
Graph conv_then(OpKind act, Attrs act_attrs) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 4, 5, 5}));
  g.inputs = {x};
  Value* w = g.add_constant("w", f32_constant({4, 4, 1, 1}, std::vector<float>(16, 0.25f)));
  Attrs ca;
  ca.set("kernel_shape", std::vector<int64_t>{1, 1});
  Value* c = g.add_node(OpKind::Conv, "conv", {x, w}, {"c"}, ca)->outputs[0];
  g.outputs = {g.add_node(act, "act", {c}, {"y"}, std::move(act_attrs))->outputs[0]};
  infer_types(g);
  fuse_epilogue(g);
  verify_graph(g);
  return g;
}

TEST(FuseEpilogue, OneInputActivationsByName) {
  Graph hs = conv_then(OpKind::HardSwish, {});
  ASSERT_EQ(hs.nodes().size(), 1u);
  EXPECT_EQ(hs.nodes()[0]->attrs.get_string("activation", ""), "HardSwish");
  Attrs la;
  la.set("alpha", 0.2);
  Graph lr = conv_then(OpKind::LeakyRelu, la);
  ASSERT_EQ(lr.nodes().size(), 1u);
  EXPECT_EQ(lr.nodes()[0]->attrs.get_string("activation", ""), "LeakyRelu");
  EXPECT_DOUBLE_EQ(lr.nodes()[0]->attrs.get_float("activation_alpha", 0), 0.2);
  EXPECT_EQ(lr.outputs[0]->name, "y");
  // Log is not finite at 0 (blocked padding lanes): it stays a node.
  Graph lg = conv_then(OpKind::Log, {});
  EXPECT_EQ(lg.nodes().size(), 2u);
}

}  // namespace
}  // namespace ingot::graph
