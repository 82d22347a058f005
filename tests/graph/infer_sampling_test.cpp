// Type inference of the spatial sampling ops: GridSample (4-D and 5-D), AffineGrid (size resolved
// from a constant input), Col2Im (image_shape / block_shape resolved, explicit window
// attributes), RoiAlign (defaults made explicit) and DeformConv (output geometry), and their
// shape errors.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferGridSample, FourAndFiveD) {
  OneNode four(OpKind::GridSample, {F32({"N", 3, 8, 9}), F32({"N", 5, 6, 2})});
  EXPECT_EQ(four.infer(), F32({"N", 3, 5, 6}));
  EXPECT_EQ(four.node->attrs.get_string("mode", ""), "linear");
  EXPECT_EQ(four.node->attrs.get_string("padding_mode", ""), "zeros");
  EXPECT_EQ(four.node->attrs.get_int("align_corners", -1), 0);

  Attrs a;
  a.set("mode", std::string("cubic"));
  OneNode five(OpKind::GridSample, {T(DType::kF64, {2, 1, 4, 5, 6}), F32({2, 7, 1, 3, 3})}, a);
  EXPECT_EQ(five.infer(), T(DType::kF64, {2, 1, 7, 1, 3}));

  OneNode bad(OpKind::GridSample, {F32({1, 3, 8, 9}), F32({1, 5, 6, 3})}, {}, 1, "gs");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'gs' (GridSample): the last dim of 'grid' float32[1,5,6,3] must be 2 (one "
            "coordinate per spatial dim of X)");
  Attrs m;
  m.set("mode", std::string("bilinear"));
  OneNode mode(OpKind::GridSample, {F32({1, 3, 8, 9}), F32({1, 5, 6, 2})}, m, 1, "gs");
  EXPECT_EQ(user_error([&] { mode.infer(); }),
            "node 'gs' (GridSample): attribute 'mode' = 'bilinear' is not supported (valid: "
            "linear, nearest, cubic)");
}

TEST(InferAffineGrid, SizeFromConstantInput) {
  Graph g;
  Value* theta = g.add_value("theta", F32({2, 3, 4}));
  g.inputs = {theta};
  Value* size = g.add_constant("size", testing::i64_vector({2, 1, 4, 5, 6}));
  Node* n = g.add_node(OpKind::AffineGrid, "ag", {theta, size}, {"grid"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({2, 4, 5, 6, 3}));
  EXPECT_EQ(n->inputs.size(), 1u);
  EXPECT_EQ(n->attrs.get_ints("size"), (std::vector<int64_t>{2, 1, 4, 5, 6}));

  Attrs a;
  a.set("size", std::vector<int64_t>{2, 1, 4, 5, 6});
  OneNode two_d(OpKind::AffineGrid, {F32({2, 2, 3})}, a, 1, "ag");
  EXPECT_EQ(user_error([&] { two_d.infer(); }),
            "node 'ag' (AffineGrid): input 'theta' float32[2,2,3] must have shape [N, 3, 4] for a "
            "size of 5 values");
}

TEST(InferCol2Im, ShapesAndBlockCount) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 8, 8}));
  g.inputs = {x};
  Value* image = g.add_constant("image", testing::i64_vector({4, 5}));
  Value* block = g.add_constant("block", testing::i64_vector({2, 2}));
  Attrs a;
  a.set("pads", std::vector<int64_t>{1, 0, 0, 1});
  a.set("strides", std::vector<int64_t>{2, 1});
  a.set("dilations", std::vector<int64_t>{1, 2});
  Node* n = g.add_node(OpKind::Col2Im, "c2i", {x, image, block}, {"y"}, a);
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({1, 2, 4, 5}));
  EXPECT_EQ(n->inputs.size(), 1u);

  Attrs b;
  b.set("image_shape", std::vector<int64_t>{5, 5});
  b.set("block_shape", std::vector<int64_t>{2, 2});
  OneNode defaults(OpKind::Col2Im, {F32({"N", 4, 16})}, b);
  EXPECT_EQ(defaults.infer(), F32({"N", 1, 5, 5}));
  EXPECT_EQ(defaults.node->attrs.get_ints("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(defaults.node->attrs.get_ints("strides"), (std::vector<int64_t>{1, 1}));

  OneNode wrong(OpKind::Col2Im, {F32({1, 4, 15})}, b, 1, "c2i");
  EXPECT_EQ(user_error([&] { wrong.infer(); }),
            "node 'c2i' (Col2Im): dim 2 of input float32[1,4,15] must be the number of blocks, 16");
}

TEST(InferRoiAlign, ShapeAndDefaults) {
  OneNode ra(OpKind::RoiAlign, {F32({2, 3, 10, 12}), F32({"R", 4}), T(DType::kI64, {"R"})});
  EXPECT_EQ(ra.infer(), F32({"R", 3, 1, 1}));
  EXPECT_EQ(ra.node->attrs.get_string("mode", ""), "avg");
  EXPECT_EQ(ra.node->attrs.get_string("coordinate_transformation_mode", ""), "half_pixel");
  EXPECT_EQ(ra.node->attrs.get_int("sampling_ratio", -1), 0);
  EXPECT_EQ(ra.node->attrs.get_float("spatial_scale", 0), 1.0);

  Attrs a;
  a.set("output_height", int64_t(5));
  a.set("output_width", int64_t(4));
  OneNode sized(OpKind::RoiAlign, {F32({2, 3, 10, 12}), F32({6, 4}), T(DType::kI64, {6})}, a);
  EXPECT_EQ(sized.infer(), F32({6, 3, 5, 4}));

  OneNode bad(OpKind::RoiAlign, {F32({2, 3, 10, 12}), F32({6, 5}), T(DType::kI64, {6})}, {}, 1,
              "ra");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'ra' (RoiAlign): input 'rois' float32[6,5] must have shape [num_rois, 4]");
}

TEST(InferDeformConv, OutputGeometry) {
  Attrs a;
  a.set("group", int64_t(2));
  a.set("offset_group", int64_t(2));
  a.set("pads", std::vector<int64_t>{1, 0, 1, 0});
  a.set("strides", std::vector<int64_t>{1, 2});
  OneNode dc(
      OpKind::DeformConv,
      {F32({1, 4, 3, 4}), F32({6, 2, 2, 2}), F32({1, 16, 4, 2}), F32({6}), F32({1, 8, 4, 2})}, a);
  EXPECT_EQ(dc.infer(), F32({1, 6, 4, 2}));
  EXPECT_EQ(dc.node->attrs.get_ints("kernel_shape"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(dc.node->attrs.get_ints("dilations"), (std::vector<int64_t>{1, 1}));

  OneNode bad(OpKind::DeformConv, {F32({1, 4, 3, 4}), F32({6, 2, 2, 2}), F32({1, 8, 4, 2})}, a, 1,
              "dc");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'dc' (DeformConv): dim 1 of input 'offset' float32[1,8,4,2] must be 16");
}

}  // namespace
}  // namespace ingot::graph
