// Type inference for the generators (ConstantOfShape, Size, Range), the index-mapping ops
// (Slice, Expand, Tile) and the rearranging ops (Trilu, DepthToSpace, SpaceToDepth,
// GatherElements), including attribute normalisation and inputs resolved from shapes.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "graph_test_util.h"
#include "support/half.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;
using V = std::vector<int64_t>;

Attrs slice_attrs(V starts, V ends, V axes, V steps) {
  Attrs a;
  a.set("starts", std::move(starts));
  a.set("ends", std::move(ends));
  if (!axes.empty()) a.set("axes", std::move(axes));
  if (!steps.empty()) a.set("steps", std::move(steps));
  return a;
}

TEST(InferSlice, ClampsAndNormalisesToEveryDim) {
  OneNode n(OpKind::Slice, {F32({4, 10, 5})}, slice_attrs({1, -100}, {1000, -2}, {-2, 2}, {}));
  EXPECT_EQ(n.infer(), F32({4, 9, 3}));
  EXPECT_EQ(n.node->attrs.get_ints("axes"), (V{0, 1, 2}));
  EXPECT_EQ(n.node->attrs.get_ints("starts"), (V{0, 1, 0}));
  EXPECT_EQ(n.node->attrs.get_ints("ends"), (V{4, 10, 3}));
  EXPECT_EQ(n.node->attrs.get_ints("steps"), (V{1, 1, 1}));
}

TEST(InferSlice, NegativeSteps) {
  // all of dim 0 reversed: start INT_MAX clamps to 9, end INT_MIN to -1 -> 10 elements.
  int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  OneNode a(OpKind::Slice, {F32({10})}, slice_attrs({big}, {small}, {0}, {-1}));
  EXPECT_EQ(a.infer(), F32({10}));
  EXPECT_EQ(a.node->attrs.get_ints("starts"), V{9});
  // [8:1:-3] -> 8, 5, 2
  OneNode b(OpKind::Slice, {F32({10})}, slice_attrs({8}, {1}, {}, {-3}));
  EXPECT_EQ(b.infer(), F32({3}));
  // an empty range
  OneNode c(OpKind::Slice, {F32({10})}, slice_attrs({2}, {5}, {}, {-1}));
  EXPECT_EQ(c.infer(), F32({0}));
}

TEST(InferSlice, NormalisedFormReinfersToTheSameShape) {
  // the verifier re-runs inference: a reversed slice to index 0 and an out-of-range start
  int64_t small = std::numeric_limits<int64_t>::min();
  OneNode a(OpKind::Slice, {F32({10, 4})}, slice_attrs({-1, 100}, {small, 200}, {}, {-1, 1}));
  EXPECT_EQ(a.infer(), F32({10, 0}));
  EXPECT_EQ(a.node->attrs.get_ints("ends"), (V{-11, 0}));
  EXPECT_EQ(a.infer(), F32({10, 0}));
  EXPECT_EQ(a.node->attrs.get_ints("starts"), (V{9, 0}));
}

// Slices of symbolic dims in the forms exports write: a constant start (negative: from the end)
// to the end or to a constant end. The stored attributes re-infer to the same type, and a dim
// not sliced keeps its full range (the end written as INT64_MAX).
TEST(InferSlice, SymbolicDims) {
  const SymExpr n = SymExpr::symbol("N"), t = SymExpr::symbol("T");
  const int64_t end = std::numeric_limits<int64_t>::max();
  OneNode a(OpKind::Slice, {F32({"N", "T", 4})},
            slice_attrs({-1, 2, 1}, {end, end, 3}, {0, 1, 2}, {}));
  TensorType want{DType::kF32,
                  {Dim::of(SymExpr::min(n, 1)), Dim::of(SymExpr::max(t - 2, 0)), Dim::fixed(2)}};
  EXPECT_EQ(a.infer(), want);
  EXPECT_EQ(a.node->attrs.get_ints("starts"), (V{-1, 2, 1}));
  EXPECT_EQ(a.infer(), want);  // idempotent
  OneNode b(OpKind::Slice, {F32({"N", "T"})}, slice_attrs({0}, {5}, {1}, {}));
  EXPECT_EQ(b.infer(), (TensorType{DType::kF32, {Dim::named("N"), Dim::of(SymExpr::min(t, 5))}}));
  EXPECT_EQ(b.node->attrs.get_ints("ends"), (V{end, 5}));
  EXPECT_EQ(b.infer().shape[0], Dim::named("N"));
}

TEST(InferSlice, Errors) {
  EXPECT_EQ(user_error(
                [] { OneNode(OpKind::Slice, {F32({4})}, slice_attrs({0}, {1}, {}, {0})).infer(); }),
            "node 'n' (Slice): 'steps' has a 0 for axis 0");
  EXPECT_EQ(user_error([] {
              OneNode(OpKind::Slice, {F32({"N"})}, slice_attrs({0}, {8}, {}, {2})).infer();
            }),
            "node 'n' (Slice): slice [0:8:2] of symbolic dim 'N' (axis 0) is not supported; bind "
            "the dim with --input-shapes");
  EXPECT_EQ(user_error([] {
              OneNode(OpKind::Slice, {F32({"N"})}, slice_attrs({0}, {-1}, {}, {})).infer();
            }),
            "node 'n' (Slice): slice [0:-1:1] of symbolic dim 'N' (axis 0) is not supported; bind "
            "the dim with --input-shapes");
}

TEST(InferSlice, StartsFromAShapeComputationAndValuePropagation) {
  // y = Slice(Shape(x), starts = Shape(s)[0:1] - 1 = [1], ends = [3]) -> the constant [3, 4].
  Graph g;
  Value* x = g.add_value("x", F32({2, 3, 4, 5}));
  Value* s = g.add_value("s", F32({2}));
  g.inputs = {x, s};
  Node* shape = g.add_node(OpKind::Shape, "shape", {x}, {"sh"});
  Attrs e1;
  e1.set("end", int64_t(1));
  Node* shape_s = g.add_node(OpKind::Shape, "shape_s", {s}, {"ss"}, e1);
  Value* one = g.add_constant("one", testing::i64_vector({1}));
  Node* sub = g.add_node(OpKind::Sub, "sub", {shape_s->outputs[0], one}, {"st"});
  Value* ends = g.add_constant("ends", testing::i64_vector({3}));
  Node* slice =
      g.add_node(OpKind::Slice, "slice", {shape->outputs[0], sub->outputs[0], ends}, {"y"});
  g.outputs = slice->outputs;
  infer_types(g);
  ASSERT_TRUE(g.outputs[0]->is_constant());
  EXPECT_EQ(g.outputs[0]->constant->get_i64(0), 3);
  EXPECT_EQ(g.outputs[0]->constant->get_i64(1), 4);
}

TEST(InferSlice, RunTimeStartsThroughNodes) {
  // starts = Neg(k): computed from a graph input, read at run time.
  Graph g;
  Value* x = g.add_value("x", F32({4}));
  Value* k = g.add_value("k", T(DType::kI64, {1}));
  g.inputs = {x, k};
  Node* neg = g.add_node(OpKind::Neg, "neg", {k}, {"st"});
  Value* ends = g.add_constant("ends", testing::i64_vector({3}));
  Node* slice = g.add_node(OpKind::Slice, "slice", {x, neg->outputs[0], ends}, {"y"});
  g.outputs = slice->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type.str(), "float32[y.v0]");
}

TEST(InferSlice, StartsThroughAnOpTheValueFunctionCannotComputeAreAnError) {
  // starts = Mod(k, 2): Mod is not among the ops the value function evaluates.
  Graph g;
  Value* x = g.add_value("x", F32({4}));
  Value* k = g.add_value("k", T(DType::kI64, {1}));
  g.inputs = {x, k};
  Value* two = g.add_constant("two", testing::i64_vector({2}));
  Node* mod = g.add_node(OpKind::Mod, "mod", {k, two}, {"st"});
  Value* ends = g.add_constant("ends", testing::i64_vector({3}));
  Node* slice = g.add_node(OpKind::Slice, "slice", {x, mod->outputs[0], ends}, {"y"});
  g.outputs = slice->outputs;
  EXPECT_EQ(user_error([&] { infer_types(g); }),
            "node 'slice' (Slice): input 'starts' must be a compile-time constant (it is computed "
            "at run time, and a run-time value would make the output shape data-dependent)");
}

TEST(InferExpandTile, Shapes) {
  Attrs e;
  e.set("shape", V{2, 1, 3});
  OneNode ex(OpKind::Expand, {F32({4, 1})}, e);
  EXPECT_EQ(ex.infer(), F32({2, 4, 3}));
  EXPECT_EQ(ex.node->attrs.get_ints("shape"), (V{2, 4, 3}));
  EXPECT_EQ(user_error([] {
              Attrs bad;
              bad.set("shape", V{3});
              OneNode(OpKind::Expand, {F32({2})}, bad).infer();
            }),
            "node 'n' (Expand): shapes [2] and [3] do not broadcast");
  Attrs r;
  r.set("repeats", V{2, 1, 3});
  EXPECT_EQ(OneNode(OpKind::Tile, {F32({2, "N", 3})}, r).infer(), F32({4, "N", 9}));
  EXPECT_EQ(user_error([] {
              Attrs bad;
              bad.set("repeats", V{2});
              OneNode(OpKind::Tile, {F32({2, 3})}, bad).infer();
            }),
            "node 'n' (Tile): input 'repeats' has 1 values for an input of rank 2");
}

TEST(InferGenerators, ConstantOfShapeSizeRange) {
  Attrs c;
  c.set("shape", V{2, 0, 3});
  c.set("dtype", int64_t(DType::kI32));
  OneNode cos(OpKind::ConstantOfShape, {}, c);
  EXPECT_EQ(cos.infer(), T(DType::kI32, {2, 0, 3}));

  OneNode size(OpKind::Size, {F32({2, 3, 4})});
  size.infer();
  ASSERT_TRUE(size.g.outputs[0]->is_constant());  // folded by shape-value propagation
  EXPECT_EQ(size.g.outputs[0]->constant->get_i64(0), 24);

  Graph g;
  Value* start = g.add_constant("start", testing::i64_tensor({}, {10}));
  Value* limit = g.add_constant("limit", testing::i64_tensor({}, {1}));
  Value* delta = g.add_constant("delta", testing::i64_tensor({}, {-4}));
  Node* range = g.add_node(OpKind::Range, "r", {start, limit, delta}, {"y"});
  g.outputs = range->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, T(DType::kI64, {3}));  // 10, 6, 2
}

// Bounds the model's caller gives (graph inputs) make the length a value symbol, computed at run
// time (ops/value_symbols.h).
TEST(InferGenerators, RangeFromGraphInputsHasAValueLength) {
  OneNode r(OpKind::Range, {F32({}), F32({}), F32({})});
  graph::TensorType t = r.infer();
  EXPECT_EQ(t.dtype, DType::kF32);
  ASSERT_EQ(t.rank(), 1);
  EXPECT_FALSE(t.shape[0].is_static());
}

TEST(InferGenerators, RangeFloat16) {
  auto half = [](double v) {
    uint16_t h = double_to_half_bits(v);
    std::vector<uint8_t> bytes(2);
    std::memcpy(bytes.data(), &h, 2);
    return std::make_shared<Tensor>(DType::kF16, std::vector<int64_t>{}, std::move(bytes));
  };
  Graph g;
  Value* start = g.add_constant("start", half(1));
  Value* limit = g.add_constant("limit", half(1.25));
  Value* delta = g.add_constant("delta", half(0.1));  // 0.0999755859375 in float16
  Node* range = g.add_node(OpKind::Range, "r", {start, limit, delta}, {"y"});
  g.outputs = range->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, T(DType::kF16, {3}));  // ceil(0.25 / 0.09998) = 3
}

}  // namespace
}  // namespace ingot::graph

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferRearrange, TriluDepthSpaceGatherElements) {
  OneNode tr(OpKind::Trilu, {F32({2, 3, 4})});
  EXPECT_EQ(tr.infer(), F32({2, 3, 4}));
  EXPECT_EQ(tr.node->attrs.get_int("upper", -1), 1);
  EXPECT_EQ(user_error([] { OneNode(OpKind::Trilu, {F32({4})}).infer(); }),
            "node 'n' (Trilu): input 'input' must have rank >= 2, got float32[4]");

  Attrs b;
  b.set("blocksize", int64_t(2));
  EXPECT_EQ(OneNode(OpKind::DepthToSpace, {F32({1, 8, 2, 3})}, b).infer(), F32({1, 2, 4, 6}));
  EXPECT_EQ(OneNode(OpKind::SpaceToDepth, {F32({1, 2, 4, 6})}, b).infer(), F32({1, 8, 2, 3}));
  EXPECT_EQ(user_error([&] {
              OneNode(OpKind::DepthToSpace, {F32({1, 6, 2, 3})}, b).infer();
            }),
            "node 'n' (DepthToSpace): channels 6 are not divisible by blocksize^2 = 4");

  Attrs ax;
  ax.set("axis", int64_t(-1));
  OneNode ge(OpKind::GatherElements, {F32({3, 4}), T(DType::kI64, {3, 2})}, ax);
  EXPECT_EQ(ge.infer(), F32({3, 2}));
  EXPECT_EQ(ge.node->attrs.get_int("axis", -1), 1);
}

}  // namespace
}  // namespace ingot::graph

namespace ingot::graph {
namespace {

// The LayerNormalization function body: ConstantOfShape(Neg(axis)) with a constant axis.
TEST(InferGenerators, ConstantOfShapeOfANegatedConstant) {
  Graph g;
  Value* axis = g.add_constant("axis", testing::i64_vector({-1}));
  Node* neg = g.add_node(ops::OpKind::Neg, "neg", {axis}, {"k"});
  Attrs a;
  a.set("value", 1.0);
  Node* cos = g.add_node(ops::OpKind::ConstantOfShape, "cos", {neg->outputs[0]}, {"y"}, a);
  g.outputs = cos->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, testing::F32({1}));
  EXPECT_EQ(cos->attrs.get_ints("shape"), std::vector<int64_t>{1});
}

TEST(InferGenerators, IntConstantOfShapeIsAShapeValue) {
  Graph g;
  Value* shape = g.add_constant("shape", testing::i64_vector({2}));
  Attrs a;
  a.set("value", 1.0);
  a.set("dtype", int64_t(DType::kI64));
  Node* cos = g.add_node(ops::OpKind::ConstantOfShape, "cos", {shape}, {"y"}, a);
  g.outputs = cos->outputs;
  infer_types(g);
  ASSERT_TRUE(g.outputs[0]->is_constant());  // so Concat -> Reshape chains resolve
  EXPECT_EQ(g.outputs[0]->constant->get_i64(1), 1);
}

}  // namespace
}  // namespace ingot::graph
