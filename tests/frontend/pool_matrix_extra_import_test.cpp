// Import of the ops added for ONNX conformance (issue 4): MaxPool's Indices output with
// storage_order, Dropout's mask (ConstantOfShape of ones, bool or X's dtype), MaxUnpool's
// output_shape, EyeLike/BitCast dtypes as graph DTypes, LRN and Shrink defaults, CumProd,
// ReverseSequence, GlobalMaxPool and Det.
#include <gtest/gtest.h>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using ops::OpKind;

TEST(OnnxPoolExtra, MaxPoolIndicesOnlyWhenUsed) {
  ModelBuilder b = model(12, {1, 1, 5, 5});
  auto* used = b.node("MaxPool", {"x"}, {"y", "i"}, "mp");
  set_attr(used, "kernel_shape", Ints{2, 2});
  set_attr(used, "storage_order", int64_t(1));
  auto* unused = b.node("MaxPool", {"x"}, {"y2", "i2"}, "mp2");
  set_attr(unused, "kernel_shape", Ints{2, 2});
  b.output("y");
  b.output("i");
  b.output("y2");
  auto g = b.import();
  const graph::Node* mp = find_node(*g, "mp");
  EXPECT_EQ(mp->outputs.size(), 2u);
  EXPECT_EQ(mp->attrs.get_int("storage_order", 0), 1);
  const graph::Node* mp2 = find_node(*g, "mp2");
  EXPECT_EQ(mp2->outputs.size(), 1u);
  EXPECT_FALSE(mp2->attrs.has("storage_order"));
  graph::infer_types(*g);
  EXPECT_EQ(g->outputs[1]->type.dtype, graph::DType::kI64);
}

TEST(OnnxPoolExtra, MaxUnpoolOutputShapeAndGlobalMaxPool) {
  ModelBuilder b = model(11, {1, 1, 2, 2});
  b.input("i", {1, 1, 2, 2}, onnx::TensorProto::INT64);
  b.init(i64_tensor("shape", {4}, {1, 1, 5, 5}));
  auto* u = b.node("MaxUnpool", {"x", "i", "shape"}, {"y"}, "up");
  set_attr(u, "kernel_shape", Ints{2, 2});
  set_attr(u, "strides", Ints{2, 2});
  b.node("GlobalMaxPool", {"x"}, {"z"}, "gmp");
  b.output("y");
  b.output("z");
  auto g = b.import();
  const graph::Node* up = find_node(*g, "up");
  EXPECT_EQ(up->inputs.size(), 2u);
  EXPECT_EQ(up->attrs.get_ints("output_shape"), (Ints{1, 1, 5, 5}));
  EXPECT_EQ(find_node(*g, "gmp")->op, OpKind::GlobalMaxPool);

  ModelBuilder rt = model(11, {1, 1, 2, 2});
  rt.input("i", {1, 1, 2, 2}, onnx::TensorProto::INT64);
  rt.input("shape", {4}, onnx::TensorProto::INT64);
  auto* r = rt.node("MaxUnpool", {"x", "i", "shape"}, {"y"}, "up");
  set_attr(r, "kernel_shape", Ints{2, 2});
  rt.output("y");
  auto rg = rt.import();  // output_shape given at run time: kept, the dims value symbols
  ASSERT_EQ(find_node(*rg, "up")->inputs.size(), 3u);
  graph::infer_types(*rg);
  EXPECT_EQ(rg->outputs[0]->type.str(), "float32[y.v0,y.v1,y.v2,y.v3]");
}

TEST(OnnxElementwiseExtra, DropoutMaskIsOnes) {
  for (int opset : {7, 13}) {
    ModelBuilder b = model(opset, {2, 3});
    b.node("Dropout", {"x"}, {"y", "mask"}, "drop");
    b.output("y");
    b.output("mask");
    auto g = b.import();
    graph::infer_types(*g);
    ASSERT_EQ(g->outputs.size(), 2u);
    EXPECT_EQ(g->outputs[1]->name, "mask");
    EXPECT_EQ(g->outputs[1]->type.dtype, opset >= 10 ? graph::DType::kBool : graph::DType::kF32);
    EXPECT_EQ(g->outputs[1]->type.shape, g->outputs[0]->type.shape);
  }
  // The ratio input may be a run-time value: inference ignores it.
  ModelBuilder r = model(13, {2, 3});
  r.input("ratio", {});
  r.node("Dropout", {"x", "ratio"}, {"y", "mask"}, "drop");
  r.output("mask");
  EXPECT_NO_THROW(r.import());
}

TEST(OnnxElementwiseExtra, BitCastAndEyeLikeDtypes) {
  ModelBuilder b = model(26, {3, 3});
  set_attr(b.node("BitCast", {"x"}, {"y"}, "bc"), "to", int64_t(onnx::TensorProto::INT32));
  auto* e = b.node("EyeLike", {"x"}, {"z"}, "eye");
  set_attr(e, "dtype", int64_t(onnx::TensorProto::INT64));
  set_attr(e, "k", int64_t(-1));
  b.output("y");
  b.output("z");
  auto g = b.import();
  EXPECT_EQ(find_node(*g, "bc")->attrs.get_int("to", -1), int64_t(graph::DType::kI32));
  EXPECT_EQ(find_node(*g, "eye")->attrs.get_int("dtype", -1), int64_t(graph::DType::kI64));
  EXPECT_EQ(find_node(*g, "eye")->attrs.get_int("k", 0), -1);

  ModelBuilder bad = model(26, {3});
  set_attr(bad.node("BitCast", {"x"}, {"y"}, "bc"), "to", int64_t(onnx::TensorProto::STRING));
  bad.output("y");
  EXPECT_NE(user_error([&] { bad.import(); }).find("attribute 'to' value 8"), std::string::npos);
}

TEST(OnnxNormExtra, LRNShrinkCumProdReverseSequenceDet) {
  ModelBuilder b = model(26, {2, 4, 3, 3});
  set_attr(b.node("LRN", {"x"}, {"l"}, "lrn"), "size", int64_t(3));
  set_attr(b.node("Shrink", {"x"}, {"s"}, "shrink"), "lambd", 1.5);
  b.input("v", {5}, onnx::TensorProto::INT32);
  b.init(i64_tensor("zero", {}, {0}));
  set_attr(b.node("CumProd", {"v", "zero"}, {"c"}, "cp"), "reverse", int64_t(1));
  b.input("seq", {4, 2});
  b.input("lens", {2}, onnx::TensorProto::INT64);
  b.node("ReverseSequence", {"seq", "lens"}, {"r"}, "rs");
  b.input("m", {2, 3, 3});
  b.node("Det", {"m"}, {"d"}, "det");
  for (const char* o : {"l", "s", "c", "r", "d"}) b.output(o);
  auto g = b.import();
  const graph::Node* lrn = find_node(*g, "lrn");
  EXPECT_EQ(lrn->attrs.get_int("size", 0), 3);
  EXPECT_DOUBLE_EQ(lrn->attrs.get_float("beta", 0), 0.75);
  EXPECT_NEAR(find_node(*g, "shrink")->attrs.get_float("lambd", 0), 1.5, 1e-7);
  const graph::Node* cp = find_node(*g, "cp");
  EXPECT_EQ(cp->op, OpKind::CumProd);
  EXPECT_EQ(cp->inputs.size(), 1u);
  EXPECT_EQ(cp->attrs.get_int("reverse", 0), 1);
  const graph::Node* rs = find_node(*g, "rs");
  EXPECT_EQ(rs->attrs.get_int("batch_axis", -1), 1);
  EXPECT_EQ(rs->attrs.get_int("time_axis", -1), 0);
  graph::infer_types(*g);
  EXPECT_EQ(g->outputs[4]->type.rank(), 1);

  ModelBuilder old = model(10, {2, 2});
  old.node("CumProd", {"x"}, {"c"}, "cp");
  old.output("c");
  EXPECT_NE(user_error([&] { old.import(); }), "no error");
}

}  // namespace
}  // namespace ingot::frontend::testing
