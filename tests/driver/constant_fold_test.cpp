// Constant folding with ingot's own kernels: evaluate_constant_node on single nodes (values
// checked against hand-computed ones) and infer_types with the evaluator folding the chain
// exporters emit for expand(-1, ...) (ConstantOfShape -> Mul -> Equal -> Where -> Expand shape).
#include <gtest/gtest.h>

#include <cstring>

#include "driver/constant_eval.h"
#include "graph/graph_test_util.h"
#include "graph/transforms/infer_types.h"

namespace ingot::driver {
namespace {

using graph::Dim;
using graph::DType;
using ops::OpKind;

using graph::testing::f32_tensor;
using graph::testing::i64_tensor;

TEST(ConstantFold, EvaluatesOneNodeWithItsComputeRule) {
  graph::Graph g;
  graph::Value* a = g.add_constant("a", f32_tensor({2, 2}, {1, 2, 3, 4}));
  graph::Value* b = g.add_constant("b", f32_tensor({2}, {10, 20}));
  graph::Node* n = g.add_node(OpKind::Add, "add", {a, b}, {"y"});
  graph::infer_types(g);
  std::vector<graph::TensorPtr> out = evaluate_constant_node(*n);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->shape(), (std::vector<int64_t>{2, 2}));
  const float* y = out[0]->data_as<float>();
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{11, 22, 13, 24}));
}

TEST(ConstantFold, NodeThatCannotBeLoweredIsLeftAlone) {
  // A data-dependent Reshape target is fine to fold, but a shape tensor with two -1 entries is
  // a user error while lowering the node alone: the evaluator declines instead of throwing.
  graph::Graph g;
  graph::Value* a = g.add_constant("a", f32_tensor({2, 2}, {1, 2, 3, 4}));
  graph::Node* n = g.add_node(OpKind::Reshape, "reshape",
                              {a, g.add_constant("s", i64_tensor({2}, {-1, -1}))}, {"y"});
  EXPECT_TRUE(evaluate_constant_node(*n).empty());
}

TEST(ConstantFold, ExpandShapeFromWhereBecomesConstant) {
  // shape = Where(Equal(c, -1), ones, c) with c = [-1, 3] -> [1, 3]; y = Expand(x[2, 1], shape)
  graph::Graph g;
  graph::Value* x =
      g.add_value("x", graph::TensorType{DType::kF32, {Dim::fixed(2), Dim::fixed(1)}});
  g.inputs = {x};
  graph::Value* c = g.add_constant("c", i64_tensor({2}, {-1, 3}));
  graph::Value* neg = g.add_constant("neg", i64_tensor({}, {-1}));
  graph::Value* ones = g.add_constant("ones", i64_tensor({2}, {1, 1}));
  graph::Value* eq = g.add_node(OpKind::Equal, "eq", {c, neg}, {"eq"})->outputs[0];
  graph::Value* shape = g.add_node(OpKind::Where, "where", {eq, ones, c}, {"shape"})->outputs[0];
  g.outputs = {g.add_node(OpKind::Expand, "expand", {x, shape}, {"y"})->outputs[0]};
  ConstantFolder folder;
  graph::infer_types(g, folder.evaluator());
  ASSERT_EQ(g.nodes().size(), 1u);  // Equal and Where folded
  EXPECT_EQ(g.outputs[0]->type.str(), "float32[2,3]");
  // Both in one batch, built and run as one library, flushed because Expand's inference needs
  // the shape's value.
  EXPECT_EQ(folder.stats().nodes, 2);
  EXPECT_EQ(folder.stats().batches, 1);
  EXPECT_EQ(folder.stats().modules, 1);
}

}  // namespace
}  // namespace ingot::driver
