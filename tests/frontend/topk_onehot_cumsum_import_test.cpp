// Import of TopK (attribute k at opset 9, input K at 10+), OneHot (float depth) and CumSum
// (constant axis -> attribute, graph-input axis stays an input).
#include <gtest/gtest.h>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

TEST(OnnxTopKOneHotCumSum, TopKAttributeAndInputForms) {
  ModelBuilder b9(9);
  b9.input("x", {3, 4});
  set_attr(b9.node("TopK", {"x"}, {"v", "i"}, "tk"), "k", int64_t(2));
  b9.output("v");
  b9.output("i");
  auto g9 = b9.import();
  const graph::Node* n9 = find_node(*g9, "tk");
  EXPECT_EQ(n9->attrs.get_int("k", 0), 2);
  EXPECT_EQ(n9->outputs.size(), 2u);
  EXPECT_FALSE(n9->attrs.has("largest"));

  ModelBuilder b11(11);
  b11.input("x", {3, 4});
  b11.init(i64_tensor("k", {1}, {3}));
  auto* t = b11.node("TopK", {"x", "k"}, {"v", "i"}, "tk");
  set_attr(t, "largest", int64_t(0));
  b11.output("v");
  b11.output("i");
  auto g11 = b11.import();
  const graph::Node* n11 = find_node(*g11, "tk");
  EXPECT_EQ(n11->inputs.size(), 1u);
  EXPECT_EQ(n11->attrs.get_int("k", 0), 3);
  EXPECT_EQ(n11->attrs.get_int("largest", 1), 0);

  ModelBuilder rt(11);
  rt.input("x", {3, 4});
  rt.input("k", {1}, onnx::TensorProto::INT64);
  rt.node("TopK", {"x", "k"}, {"v", "i"}, "tk");
  rt.output("v");
  // K from a graph input is read at run time (a value symbol): the node keeps it as an input.
  auto grt = rt.import();
  const graph::Node* nrt = find_node(*grt, "tk");
  ASSERT_EQ(nrt->inputs.size(), 2u);
  EXPECT_EQ(nrt->inputs[1]->name, "k");
}

TEST(OnnxTopKOneHotCumSum, OneHotDepthAndCumSumAxis) {
  ModelBuilder b(14);
  b.input("idx", {3}, onnx::TensorProto::INT64);
  b.input("ax", {}, onnx::TensorProto::INT32);
  b.init(f32_tensor("depth", {}, {10}));
  b.init(f32_tensor("vals", {2}, {0, 1}));
  b.init(i64_tensor("zero", {}, {0}));
  b.node("OneHot", {"idx", "depth", "vals"}, {"y"}, "oh");
  b.node("CumSum", {"vals", "zero"}, {"c"}, "cs");
  auto* rev = b.node("CumSum", {"vals", "ax"}, {"d"}, "cs2");
  set_attr(rev, "reverse", int64_t(1));
  b.output("y");
  b.output("c");
  b.output("d");
  auto g = b.import();
  const graph::Node* oh = find_node(*g, "oh");
  EXPECT_EQ(oh->attrs.get_float("depth", 0), 10.0);
  ASSERT_EQ(oh->inputs.size(), 3u);
  EXPECT_EQ(oh->inputs[1], nullptr);
  const graph::Node* cs = find_node(*g, "cs");
  EXPECT_EQ(cs->inputs.size(), 1u);
  EXPECT_EQ(cs->attrs.get_int("axis", -1), 0);
  const graph::Node* cs2 = find_node(*g, "cs2");
  EXPECT_EQ(cs2->inputs.size(), 2u);
  EXPECT_EQ(cs2->attrs.get_int("reverse", 0), 1);
}

}  // namespace
}  // namespace ingot::frontend::testing
