// Import of Resize (opsets 10, 11+, 18 attributes) and Upsample (7, 9) into the canonical Resize:
// constant roi / scales / sizes become attributes, empty tensors count as absent, the legacy forms
// get asymmetric coordinates with floor rounding, run-time shape inputs are errors.
#include <gtest/gtest.h>
#include "graph/transforms/infer_types.h"

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using F = std::vector<double>;

TEST(OnnxResize, UpsampleAndResize10AreAsymmetricFloor) {
  ModelBuilder b7(7);
  b7.input("x", {1, 1, 2, 2});
  auto* u = b7.node("Upsample", {"x"}, {"y"}, "up");
  set_attr(u, "scales", std::vector<float>{1, 1, 2, 3});
  b7.output("y");
  auto g7 = b7.import();
  const graph::Node* n7 = find_node(*g7, "up");
  EXPECT_EQ(n7->op, ops::OpKind::Resize);
  EXPECT_EQ(n7->attrs.get_floats("scales"), (F{1, 1, 2, 3}));
  EXPECT_EQ(n7->attrs.get_string("coordinate_transformation_mode", ""), "asymmetric");
  EXPECT_EQ(n7->attrs.get_string("nearest_mode", ""), "floor");
  EXPECT_EQ(n7->attrs.get_string("mode", ""), "nearest");

  ModelBuilder b10(10);
  b10.input("x", {1, 1, 2, 2});
  b10.init(f32_tensor("s", {4}, {1, 1, 0.5f, 1.5f}));
  set_attr(b10.node("Resize", {"x", "s"}, {"y"}, "rs"), "mode", "linear");
  b10.output("y");
  auto g10 = b10.import();
  const graph::Node* n10 = find_node(*g10, "rs");
  EXPECT_EQ(n10->inputs.size(), 1u);
  EXPECT_EQ(n10->attrs.get_floats("scales"), (F{1, 1, 0.5, 1.5}));
  EXPECT_EQ(n10->attrs.get_string("mode", ""), "linear");
  EXPECT_EQ(n10->attrs.get_string("coordinate_transformation_mode", ""), "asymmetric");
}

TEST(OnnxResize, EmptyScalesWithSizesAndRoiOnlyForTfCrop) {
  ModelBuilder b(11);
  b.input("x", {1, 1, 4, 4});
  b.init(f32_tensor("roi", {8}, {0, 0, 0.1f, 0.2f, 1, 1, 0.9f, 0.8f}));
  b.init(f32_tensor("empty", {0}, {}));
  b.init(i64_tensor("sz", {4}, {1, 1, 3, 3}));
  auto* crop = b.node("Resize", {"x", "roi", "empty", "sz"}, {"y"}, "crop");
  set_attr(crop, "coordinate_transformation_mode", "tf_crop_and_resize");
  set_attr(crop, "extrapolation_value", 2.0);
  auto* plain = b.node("Resize", {"x", "roi", "empty", "sz"}, {"z"}, "plain");
  set_attr(plain, "mode", "cubic");
  set_attr(plain, "cubic_coeff_a", -0.5);
  b.output("y");
  b.output("z");
  auto g = b.import();
  const graph::Node* c = find_node(*g, "crop");
  EXPECT_EQ(c->inputs.size(), 1u);
  EXPECT_FALSE(c->attrs.has("scales"));
  EXPECT_EQ(c->attrs.get_ints("sizes"), (Ints{1, 1, 3, 3}));
  EXPECT_EQ(c->attrs.get_floats("roi").size(), 8u);
  EXPECT_NEAR(c->attrs.get_floats("roi")[2], 0.1, 1e-7);
  EXPECT_EQ(c->attrs.get_float("extrapolation_value", 0), 2.0);
  const graph::Node* p = find_node(*g, "plain");
  EXPECT_FALSE(p->attrs.has("roi"));
  EXPECT_EQ(p->attrs.get_string("mode", ""), "cubic");
  EXPECT_EQ(p->attrs.get_float("cubic_coeff_a", 0), -0.5);
}

TEST(OnnxResize, Opset18AxesAndErrors) {
  ModelBuilder b(18);
  b.input("x", {1, 1, 4, 4});
  b.init(i64_tensor("sz", {2}, {3, 5}));
  auto* r = b.node("Resize", {"x", "", "", "sz"}, {"y"}, "rs");
  set_attr(r, "axes", Ints{3, 2});
  set_attr(r, "keep_aspect_ratio_policy", "not_smaller");
  set_attr(r, "antialias", int64_t(1));
  b.output("y");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "rs");
  EXPECT_EQ(n->attrs.get_ints("axes"), (Ints{3, 2}));
  EXPECT_EQ(n->attrs.get_string("keep_aspect_ratio_policy", ""), "not_smaller");
  EXPECT_EQ(n->attrs.get_int("antialias", 0), 1);

  ModelBuilder rt(13);  // sizes fed at run time: the resized dims are value symbols
  rt.input("x", {1, 1, 4, 4});
  rt.input("sz", {4}, onnx::TensorProto::INT64);
  rt.node("Resize", {"x", "", "", "sz"}, {"y"}, "rs");
  rt.output("y");
  auto rg = rt.import();
  const graph::Node* rn = find_node(*rg, "rs");
  ASSERT_EQ(rn->inputs.size(), 4u);
  EXPECT_EQ(rn->inputs[3]->name, "sz");
  graph::infer_types(*rg);
  EXPECT_EQ(rn->outputs[0]->type.str(), "float32[y.v0,y.v1,y.v2,y.v3]");

  ModelBuilder short_sizes(13);  // a run-time sizes of the wrong length
  short_sizes.input("x", {1, 1, 4, 4});
  short_sizes.input("sz", {3}, onnx::TensorProto::INT64);
  short_sizes.node("Resize", {"x", "", "", "sz"}, {"y"}, "rs");
  short_sizes.output("y");
  EXPECT_EQ(user_error([&] { graph::infer_types(*short_sizes.import()); }),
            "node 'rs' (Resize): input 'sizes' must be a 1-D int64 tensor of 4 values, got "
            "int64[3]");

  ModelBuilder both(13);
  both.input("x", {1, 1, 4, 4});
  both.init(f32_tensor("s", {4}, {1, 1, 2, 2}));
  both.init(i64_tensor("sz", {4}, {1, 1, 8, 8}));
  both.node("Resize", {"x", "", "s", "sz"}, {"y"}, "rs");
  both.output("y");
  EXPECT_EQ(user_error([&] { both.import(); }),
            "node 'rs' (Resize): only one of 'scales' and 'sizes' may be given");

  ModelBuilder bad(9);
  bad.input("x", {1, 1, 4, 4});
  bad.init(f32_tensor("s", {4}, {1, 1, 2, 2}));
  set_attr(bad.node("Upsample", {"x", "s"}, {"y"}, "up"), "mode", "cubic");
  bad.output("y");
  EXPECT_EQ(user_error([&] { bad.import(); }),
            "node 'up' (Upsample): attribute 'mode' = 'cubic' is not supported (valid: nearest, "
            "linear)");
}

}  // namespace
}  // namespace ingot::frontend::testing
