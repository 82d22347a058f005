// Import of the spatial sampling ops: GridSample (opset-16 bilinear / bicubic renamed, defaults
// by opset), AffineGrid and Col2Im (shape inputs as attributes, graph inputs rejected),
// RoiAlign (opset 10 output_half_pixel) and DeformConv (mask without bias).
#include <gtest/gtest.h>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

TEST(OnnxSampling, GridSampleModesByOpset) {
  ModelBuilder b16(16);
  b16.input("x", {1, 2, 4, 4});
  b16.input("g", {1, 3, 3, 2});
  b16.node("GridSample", {"x", "g"}, {"y"}, "gs");
  set_attr(b16.node("GridSample", {"x", "g"}, {"z"}, "gs_cubic"), "mode", "bicubic");
  b16.output("y");
  b16.output("z");
  auto g16 = b16.import();
  EXPECT_EQ(find_node(*g16, "gs")->attrs.get_string("mode", ""), "linear");
  EXPECT_EQ(find_node(*g16, "gs_cubic")->attrs.get_string("mode", ""), "cubic");
  EXPECT_EQ(find_node(*g16, "gs")->attrs.get_int("align_corners", -1), 0);

  ModelBuilder b20(20);
  b20.input("x", {1, 2, 3, 4, 4});
  b20.input("g", {1, 2, 3, 3, 3});
  auto* n = b20.node("GridSample", {"x", "g"}, {"y"}, "gs");
  set_attr(n, "mode", "nearest");
  set_attr(n, "padding_mode", "reflection");
  set_attr(n, "align_corners", int64_t(1));
  b20.output("y");
  auto g20 = b20.import();
  const graph::Node* gs = find_node(*g20, "gs");
  EXPECT_EQ(gs->attrs.get_string("mode", ""), "nearest");
  EXPECT_EQ(gs->attrs.get_string("padding_mode", ""), "reflection");
  EXPECT_EQ(gs->attrs.get_int("align_corners", 0), 1);

  ModelBuilder bad(16);
  bad.input("x", {1, 2, 4, 4});
  bad.input("g", {1, 3, 3, 2});
  set_attr(bad.node("GridSample", {"x", "g"}, {"y"}, "gs"), "mode", "linear");
  bad.output("y");
  EXPECT_EQ(user_error([&] { bad.import(); }),
            "node 'gs' (GridSample): attribute 'mode' = 'linear' is not supported (valid: "
            "bilinear, nearest, bicubic)");
}

TEST(OnnxSampling, ShapeInputsBecomeAttributes) {
  ModelBuilder b(20);
  b.input("theta", {2, 2, 3});
  b.input("cols", {1, 4, 16});
  b.init(i64_tensor("size", {4}, {2, 3, 5, 6}));
  b.init(i64_tensor("image", {2}, {5, 5}));
  b.init(i64_tensor("block", {2}, {2, 2}));
  set_attr(b.node("AffineGrid", {"theta", "size"}, {"grid"}, "ag"), "align_corners", int64_t(1));
  b.node("Col2Im", {"cols", "image", "block"}, {"img"}, "c2i");
  b.output("grid");
  b.output("img");
  auto g = b.import();
  const graph::Node* ag = find_node(*g, "ag");
  EXPECT_EQ(ag->inputs.size(), 1u);
  EXPECT_EQ(ag->attrs.get_ints("size"), (Ints{2, 3, 5, 6}));
  EXPECT_EQ(ag->attrs.get_int("align_corners", 0), 1);
  const graph::Node* c2i = find_node(*g, "c2i");
  EXPECT_EQ(c2i->inputs.size(), 1u);
  EXPECT_EQ(c2i->attrs.get_ints("image_shape"), (Ints{5, 5}));
  EXPECT_EQ(c2i->attrs.get_ints("block_shape"), (Ints{2, 2}));

  // AffineGrid's size and Col2Im's image_shape given by the caller are read at run time (value
  // symbols): they stay inputs. A constant block_shape still becomes the attribute, and decides
  // the channels; the image dims are value symbols.
  ModelBuilder rt(20);
  rt.input("theta", {2, 2, 3});
  rt.input("size", {4}, onnx::TensorProto::INT64);
  rt.node("AffineGrid", {"theta", "size"}, {"grid"}, "ag");
  rt.output("grid");
  auto rg = rt.import();
  ASSERT_EQ(rg->nodes().size(), 1u);
  EXPECT_EQ(rg->nodes()[0]->inputs.at(1)->name, "size");
  ModelBuilder ci(18);
  ci.input("x", {1, 4, 4});
  ci.input("image_shape", {2}, onnx::TensorProto::INT64);
  ci.init(i64_tensor("block_shape", {2}, {2, 2}));
  ci.node("Col2Im", {"x", "image_shape", "block_shape"}, {"y"}, "c2i");
  ci.output("y");
  auto cg = ci.import();
  graph::infer_types(*cg);
  const graph::Node* n = find_node(*cg, "c2i");
  ASSERT_EQ(n->inputs.size(), 3u);
  EXPECT_EQ(n->inputs[1]->name, "image_shape");
  EXPECT_EQ(n->inputs[2], nullptr);
  EXPECT_EQ(n->attrs.get_ints("block_shape"), (Ints{2, 2}));
  EXPECT_EQ(n->outputs[0]->type.str(), "float32[1,1,y.v2,y.v3]");
}

TEST(OnnxSampling, RoiAlignAndDeformConv) {
  ModelBuilder b10(10);
  b10.input("x", {1, 2, 8, 8});
  b10.input("rois", {3, 4});
  b10.input("idx", {3}, onnx::TensorProto::INT64);
  auto* ra = b10.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
  set_attr(ra, "output_height", int64_t(2));
  set_attr(ra, "mode", "max");
  b10.output("y");
  auto g10 = b10.import();
  const graph::Node* r10 = find_node(*g10, "ra");
  EXPECT_EQ(r10->attrs.get_string("coordinate_transformation_mode", ""), "output_half_pixel");
  EXPECT_EQ(r10->attrs.get_string("mode", ""), "max");
  EXPECT_EQ(r10->attrs.get_int("output_height", 0), 2);

  ModelBuilder b19(19);
  b19.input("x", {1, 2, 8, 8});
  b19.input("rois", {3, 4});
  b19.input("idx", {3}, onnx::TensorProto::INT64);
  b19.input("w", {4, 2, 3, 3});
  b19.input("off", {1, 18, 6, 6});
  b19.input("mask", {1, 9, 6, 6});
  b19.node("RoiAlign", {"x", "rois", "idx"}, {"y"}, "ra");
  b19.node("DeformConv", {"x", "w", "off", "", "mask"}, {"z"}, "dc");
  b19.output("y");
  b19.output("z");
  auto g19 = b19.import();
  EXPECT_EQ(find_node(*g19, "ra")->attrs.get_string("coordinate_transformation_mode", ""),
            "half_pixel");
  const graph::Node* dc = find_node(*g19, "dc");
  ASSERT_EQ(dc->inputs.size(), 5u);
  EXPECT_EQ(dc->inputs[3], nullptr);
  EXPECT_NE(dc->inputs[4], nullptr);
}

}  // namespace
}  // namespace ingot::frontend::testing
