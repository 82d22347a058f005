// Type inference of Resize: output shapes from scales or sizes (axes, keep_aspect_ratio_policy),
// the canonical full-rank attributes, sizes computed from shapes, and attribute errors.
#include <gtest/gtest.h>

#include <cstring>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;
using V = std::vector<int64_t>;
using F = std::vector<double>;

TEST(InferResize, ScalesFloorTheOutputDims) {
  Attrs a;
  a.set("scales", F{1, 1, 0.6, 2.5});
  OneNode n(OpKind::Resize, {F32({"N", 3, 5, 3})}, a);
  EXPECT_EQ(n.infer(), F32({"N", 3, 3, 7}));  // floor(5 * 0.6) = 3, floor(3 * 2.5) = 7
  EXPECT_EQ(n.node->attrs.get_ints("sizes"), (V{-1, 3, 3, 7}));
  EXPECT_EQ(n.node->attrs.get_string("mode", ""), "nearest");
  EXPECT_EQ(n.node->attrs.get_string("coordinate_transformation_mode", ""), "half_pixel");
  EXPECT_EQ(n.node->attrs.get_string("nearest_mode", ""), "round_prefer_floor");
  EXPECT_DOUBLE_EQ(n.node->attrs.get_float("cubic_coeff_a", 0), -0.75);
  // Idempotent: the canonical attributes give the same type again.
  Attrs before = n.node->attrs;
  EXPECT_EQ(n.infer(), F32({"N", 3, 3, 7}));
  EXPECT_EQ(n.node->attrs, before);
}

TEST(InferResize, SizesWithAxesAndAspectRatioPolicies) {
  Attrs a;
  a.set("sizes", V{7, 8});
  a.set("axes", V{-1, 2});  // width 7, height 8
  OneNode stretch(OpKind::Resize, {F32({1, 2, 2, 4})}, a);
  EXPECT_EQ(stretch.infer(), F32({1, 2, 8, 7}));
  EXPECT_EQ(stretch.node->attrs.get_floats("scales"), (F{1, 1, 4, 7.0 / 4}));
  EXPECT_FALSE(stretch.node->attrs.has("axes"));

  a.set("axes", V{2, 3});
  a.set("sizes", V{7, 7});
  a.set("keep_aspect_ratio_policy", std::string("not_larger"));
  OneNode smaller(OpKind::Resize, {F32({1, 1, 2, 4})}, a);
  EXPECT_EQ(smaller.infer(), F32({1, 1, 4, 7}));  // scale min(3.5, 1.75): round(2 * 1.75) = 4
  EXPECT_EQ(smaller.node->attrs.get_floats("scales"), (F{1, 1, 1.75, 1.75}));
  a.set("keep_aspect_ratio_policy", std::string("not_smaller"));
  OneNode larger(OpKind::Resize, {F32({1, 1, 2, 4})}, a);
  EXPECT_EQ(larger.infer(), F32({1, 1, 7, 14}));
}

TEST(InferResize, TfCropRoiIsExpandedToFullRank) {
  Attrs a;
  a.set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  a.set("mode", std::string("linear"));
  a.set("axes", V{3, 2});
  a.set("sizes", V{3, 2});
  a.set("roi", F{0.2, 0.4, 0.6, 0.8});  // starts (w, h), ends (w, h)
  OneNode n(OpKind::Resize, {F32({1, 1, 4, 4})}, a);
  EXPECT_EQ(n.infer(), F32({1, 1, 2, 3}));
  EXPECT_EQ(n.node->attrs.get_floats("roi"), (F{0, 0, 0.4, 0.2, 1, 1, 0.8, 0.6}));
}

TEST(InferResize, SizesComputedFromTheInputShape) {
  // sizes = Shape(x) * [1, 1, 2, 3], folded by shape-value propagation.
  Graph g;
  Value* x = g.add_value("x", F32({1, 2, 3, 4}));
  g.inputs = {x};
  Node* shape = g.add_node(OpKind::Shape, "shape", {x}, {"sh"});
  Value* mult = g.add_constant("mult", testing::i64_vector({1, 1, 2, 3}));
  Node* mul = g.add_node(OpKind::Mul, "mul", {shape->outputs[0], mult}, {"sizes"});
  Node* rs = g.add_node(OpKind::Resize, "rs", {x, nullptr, nullptr, mul->outputs[0]}, {"y"});
  g.outputs = rs->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({1, 2, 6, 12}));
}

TEST(InferResize, RunTimeScalesThroughNodesAreValueDims) {
  // scales = Neg(s) for a graph input s: the value function computes it (value_elements.h).
  Graph g;
  Value* x = g.add_value("x", F32({1, 2, 3, 4}));
  Value* s = g.add_value("s", F32({4}));
  g.inputs = {x, s};
  Node* neg = g.add_node(OpKind::Neg, "neg", {s}, {"scales"});
  Node* rs = g.add_node(OpKind::Resize, "rs", {x, nullptr, neg->outputs[0]}, {"y"});
  g.outputs = rs->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type.str(), "float32[y.v0,y.v1,y.v2,y.v3]");
}

TEST(InferResize, ScalesThroughAnOpTheValueFunctionCannotComputeAreAnError) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 2, 3, 4}));
  Value* s = g.add_value("s", F32({4}));
  g.inputs = {x, s};
  Node* exp = g.add_node(OpKind::Exp, "exp", {s}, {"scales"});
  Node* rs = g.add_node(OpKind::Resize, "rs", {x, nullptr, exp->outputs[0]}, {"y"});
  g.outputs = rs->outputs;
  EXPECT_EQ(user_error([&] { infer_types(g); }),
            "node 'rs' (Resize): input 'scales' must be a compile-time constant (it is computed "
            "at run time, and a run-time value would make the output shape data-dependent)");
}

TEST(InferResize, AttributeErrors) {
  auto err = [](Attrs a, TensorType x = F32({1, 1, 4, 4})) {
    OneNode n(OpKind::Resize, {x}, a, 1, "rs");
    return user_error([&] { n.infer(); });
  };
  EXPECT_EQ(err({}), "node 'rs' (Resize): one of 'scales' and 'sizes' is required");
  Attrs a;
  a.set("scales", F{1, 2});
  EXPECT_EQ(err(a), "node 'rs' (Resize): 'scales' has 2 values for 4 resized axes");
  a.set("scales", F{1, 1, 0, 2});
  EXPECT_EQ(err(a), "node 'rs' (Resize): 'scales' has a non-positive value 0");
  a.set("scales", F{1, 1, 2, 2});
  a.set("mode", std::string("bilinear"));
  EXPECT_EQ(err(a),
            "node 'rs' (Resize): attribute 'mode' = 'bilinear' is not supported (valid: nearest, "
            "linear, cubic)");
  a.set("mode", std::string("nearest"));
  a.set("antialias", int64_t(1));
  EXPECT_EQ(err(a), "node 'rs' (Resize): attribute 'antialias' = 1 needs mode 'linear' or 'cubic'");
  a.set("antialias", int64_t(0));
  a.set("coordinate_transformation_mode", std::string("tf_crop_and_resize"));
  EXPECT_EQ(err(a),
            "node 'rs' (Resize): 'roi' has 0 values, tf_crop_and_resize needs 2 x 4 (starts, "
            "ends)");
  a.set("coordinate_transformation_mode", std::string("half_pixel"));
  EXPECT_EQ(err(a, F32({1, 1, "H", 4})),
            "node 'rs' (Resize): cannot resize symbolic dim 'H' (axis 2) with a scale other "
            "than 1");
}

}  // namespace
}  // namespace ingot::graph
