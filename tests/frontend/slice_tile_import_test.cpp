// Import of Slice (attributes before opset 10, inputs after), ConstantOfShape (value tensor),
// Tile/Expand (constant inputs) and Trilu (optional k) into their canonical forms.
#include <gtest/gtest.h>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;

TEST(OnnxSliceTile, SliceAttributesAt9AndInputsAt13) {
  ModelBuilder b9(9);
  b9.input("x", {4, 5});
  auto* s = b9.node("Slice", {"x"}, {"y"}, "sl");
  set_attr(s, "starts", Ints{1});
  set_attr(s, "ends", Ints{-1});
  set_attr(s, "axes", Ints{1});
  b9.output("y");
  auto g9 = b9.import();
  const graph::Node* n9 = find_node(*g9, "sl");
  EXPECT_EQ(n9->attrs.get_ints("starts"), Ints{1});
  EXPECT_EQ(n9->attrs.get_ints("axes"), Ints{1});
  EXPECT_FALSE(n9->attrs.has("steps"));

  ModelBuilder b13(13);
  b13.input("x", {4, 5});
  b13.init(i64_tensor("st", {1}, {3}));
  b13.init(i64_tensor("en", {1}, {0}));
  b13.init(i64_tensor("ax", {1}, {-1}));
  b13.init(i64_tensor("sp", {1}, {-2}));
  b13.node("Slice", {"x", "st", "en", "ax", "sp"}, {"y"}, "sl");
  b13.output("y");
  auto g13 = b13.import();
  const graph::Node* n13 = find_node(*g13, "sl");
  EXPECT_EQ(n13->inputs.size(), 1u);
  EXPECT_EQ(n13->attrs.get_ints("steps"), Ints{-2});
  EXPECT_EQ(n13->attrs.get_ints("axes"), Ints{-1});

  ModelBuilder rt(13);  // starts fed at run time: read at run time (value symbols)
  rt.input("x", {4, 5});
  rt.input("st", {1}, onnx::TensorProto::INT64);
  rt.init(i64_tensor("en", {1}, {0}));
  rt.node("Slice", {"x", "st", "en"}, {"y"}, "sl");
  rt.output("y");
  auto grt = rt.import();
  const graph::Node* sl = grt->nodes().at(0).get();
  ASSERT_EQ(sl->inputs.size(), 2u);  // the constant ends became the attribute
  EXPECT_EQ(sl->inputs[1]->name, "st");
  EXPECT_EQ(sl->attrs.get_ints("ends"), std::vector<int64_t>{0});
}

TEST(OnnxSliceTile, ConstantOfShapeValueTensorAndDefault) {
  ModelBuilder b(13);
  b.init(i64_tensor("shape", {2}, {2, 3}));
  onnx::TensorProto v;
  v.set_data_type(onnx::TensorProto::INT32);
  v.add_dims(1);
  v.add_int32_data(5);
  set_attr(b.node("ConstantOfShape", {"shape"}, {"y"}, "c"), "value", v);
  b.node("ConstantOfShape", {"shape"}, {"z"}, "d");
  b.output("y");
  b.output("z");
  auto g = b.import();
  const graph::Node* c = find_node(*g, "c");
  EXPECT_TRUE(c->inputs.empty());
  EXPECT_EQ(c->attrs.get_ints("shape"), (Ints{2, 3}));
  EXPECT_EQ(c->attrs.get_int("dtype", -1), int64_t(DType::kI32));
  EXPECT_EQ(c->attrs.get_float("value", 0), 5.0);
  EXPECT_EQ(find_node(*g, "d")->attrs.get_int("dtype", -1), int64_t(DType::kF32));
}

TEST(OnnxSliceTile, TileExpandInputsBecomeAttributesTriluKStaysAnInput) {
  ModelBuilder b(14);
  b.input("x", {2, 3});
  b.init(i64_tensor("r", {2}, {1, 2}));
  b.init(i64_tensor("k", {}, {-1}));
  b.node("Tile", {"x", "r"}, {"t"}, "tile");
  b.node("Expand", {"x", "r"}, {"e"}, "exp");
  b.node("Trilu", {"x", "k"}, {"u"}, "tri");
  b.node("Trilu", {"x"}, {"l"}, "tri0");
  b.output("t");
  b.output("e");
  b.output("u");
  b.output("l");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "tile")->attrs.get_ints("repeats"), (Ints{1, 2}));
  EXPECT_EQ(find_node(*g, "exp")->attrs.get_ints("shape"), (Ints{1, 2}));
  EXPECT_EQ(find_node(*g, "tri")->inputs.size(), 2u);  // k stays an input (no shape effect)
  EXPECT_EQ(find_node(*g, "tri0")->inputs.size(), 1u);
}

}  // namespace
}  // namespace ingot::frontend::testing
