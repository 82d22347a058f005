// Inputs whose canonical place is an attribute (Squeeze/Unsqueeze axes, Split sizes, Pad pads,
// Reduce axes) when other nodes compute them: the importer keeps them as node inputs and
// infer_types resolves them through shape-value propagation, or reports a clear error.
#include <gtest/gtest.h>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;

// axes = Shape(x)[1:2] = [1] for x of shape [2, 1, 3].
ModelBuilder squeeze_by_shape(int opset) {
  ModelBuilder b(opset);
  b.input("x", {2, 1, 3});
  auto* s = b.node("Shape", {"x"}, {"s"}, "shape");
  set_attr(s, "start", int64_t(1));
  set_attr(s, "end", int64_t(2));
  b.node("Squeeze", {"x", "s"}, {"y"}, "sq");
  b.output("y");
  return b;
}

TEST(ComputedInputs, SqueezeAxesFromShapeResolvedByInference) {
  auto g = squeeze_by_shape(15).import();
  const graph::Node* sq = find_node(*g, "sq");
  ASSERT_EQ(sq->inputs.size(), 2u);  // deferred to type inference
  EXPECT_FALSE(sq->attrs.has("axes"));
  graph::infer_types(*g);
  sq = find_node(*g, "sq");
  EXPECT_EQ(sq->inputs.size(), 1u);
  EXPECT_EQ(sq->attrs.get_ints("axes"), Ints{1});
  EXPECT_EQ(sq->outputs[0]->type.str(), "float32[2,3]");
}

TEST(ComputedInputs, PadPadsAndAxesFromShape) {
  // pads = Concat(Shape(x)[1:2], Shape(x)[1:2]) = [1, 1] for the single axis Shape(x)[1:2] = 1.
  ModelBuilder b(18);
  b.input("x", {2, 1, 3});
  auto* s = b.node("Shape", {"x"}, {"s"}, "shape");
  set_attr(s, "start", int64_t(1));
  set_attr(s, "end", int64_t(2));
  set_attr(b.node("Concat", {"s", "s"}, {"p"}, "cat"), "axis", int64_t(0));
  b.node("Pad", {"x", "p", "", "s"}, {"y"}, "pad");
  b.output("y");
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* pad = find_node(*g, "pad");
  EXPECT_EQ(pad->inputs.size(), 1u);
  EXPECT_EQ(pad->attrs.get_ints("pads"), (Ints{0, 1, 0, 0, 1, 0}));
  EXPECT_FALSE(pad->attrs.has("axes"));
  EXPECT_EQ(pad->outputs[0]->type.str(), "float32[2,3,3]");
}

TEST(ComputedInputs, RunTimeValueThroughNodesIsReadAtRunTime) {
  // axes = Add(Shape(x)[1:2], a graph input): known only at run time; the value function
  // computes it from k and the shape value, so the kept extents are value symbols.
  ModelBuilder b(13);
  b.input("x", {2, 1, 3});
  b.input("k", {1}, onnx::TensorProto::INT64);
  auto* s = b.node("Shape", {"x"}, {"s"}, "shape");
  set_attr(s, "start", int64_t(1));
  set_attr(s, "end", int64_t(2));
  b.node("Add", {"s", "k"}, {"ax"}, "add");
  b.node("ReduceSum", {"x", "ax"}, {"y"}, "rs");
  b.output("y");
  auto g = b.import();
  graph::infer_types(*g);
  EXPECT_EQ(g->outputs[0]->type.str(), "float32[y.v0,y.v1,y.v2]");
}

TEST(ComputedInputs, RunTimeValueThroughAnOpTheValueFunctionCannotComputeIsAnError) {
  // axes = CumSum(k): CumSum is not among the ops the value function evaluates.
  ModelBuilder b(13);
  b.input("x", {2, 1, 3});
  b.input("k", {1}, onnx::TensorProto::INT64);
  b.init(i64_tensor("zero", {}, {0}));
  b.node("CumSum", {"k", "zero"}, {"ax"}, "cumsum");
  b.node("ReduceSum", {"x", "ax"}, {"y"}, "rs");
  b.output("y");
  auto g = b.import();
  EXPECT_EQ(user_error([&] { graph::infer_types(*g); }),
            "node 'rs' (ReduceSum): input 'axes' must be a compile-time constant (it is computed "
            "at run time, and a run-time value would make the output shape data-dependent)");
}

TEST(ComputedInputs, SplitSizesFromShape) {
  // split = Concat(Shape(x)[0:1], Shape(x)[0:1]) = [2, 2] splits dim 1 (size 4) of x [2, 4].
  ModelBuilder b(13);
  b.input("x", {2, 4});
  auto* s = b.node("Shape", {"x"}, {"s"}, "shape");
  set_attr(s, "end", int64_t(1));
  set_attr(b.node("Concat", {"s", "s"}, {"sizes"}, "cat"), "axis", int64_t(0));
  set_attr(b.node("Split", {"x", "sizes"}, {"a", "c"}, "sp"), "axis", int64_t(1));
  b.output("a");
  b.output("c");
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* sp = find_node(*g, "sp");
  EXPECT_EQ(sp->inputs.size(), 1u);
  EXPECT_EQ(sp->attrs.get_ints("split"), (Ints{2, 2}));
  EXPECT_EQ(sp->outputs[1]->type.str(), "float32[2,2]");
}

}  // namespace
}  // namespace ingot::frontend::testing
