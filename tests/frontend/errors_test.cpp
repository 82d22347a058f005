// Error paths of node conversion: unknown ops, other domains, ops outside their opset range,
// unsupported attributes and values, non-constant inputs and unsupported extra outputs.
#include <gtest/gtest.h>

#include "onnx_builder.h"
#include "temp_dir.h"

namespace ingot::frontend::testing {
namespace {

// The errors here use a 4-D image input by default.
ModelBuilder image_model(int opset, const Ints& dims = {1, 3, 4, 4}) {
  return model(opset, dims);
}

TEST(OnnxErrors, UnknownOperator) {
  ModelBuilder b = image_model(13);
  b.node("TfIdfVectorizer", {"x"}, {"y"}, "n1");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'n1' (TfIdfVectorizer, opset 13): unsupported operator");
}

TEST(OnnxErrors, OperatorFromAnotherDomain) {
  ModelBuilder b = image_model(13);
  auto* o = b.model().add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  b.node("FusedConv", {"x"}, {"y"}, "f")->set_domain("com.microsoft");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'f' (FusedConv, opset 1): unsupported operator in domain 'com.microsoft'");
}

TEST(OnnxErrors, OperatorNotInTheModelsOpset) {
  ModelBuilder b = image_model(18);
  b.node("Gelu", {"x"}, {"y"}, "g");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'g' (Gelu, opset 18): unsupported operator (ingot supports Gelu at opsets 20 to "
            "28)");
}

TEST(OnnxErrors, PadModeUnknownOrWrapBeforeOpset19) {
  ModelBuilder b = image_model(19);
  b.init(i64_tensor("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1}));
  set_attr(b.node("Pad", {"x", "pads"}, {"y"}, "p"), "mode", "mirror");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'p' (Pad): attribute 'mode' value 'mirror' is not supported (expected constant, "
            "reflect, edge or wrap)");
  ModelBuilder b18 = image_model(18);
  b18.init(i64_tensor("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1}));
  set_attr(b18.node("Pad", {"x", "pads"}, {"y"}, "p"), "mode", "wrap");
  b18.output("y");
  EXPECT_EQ(user_error([&] { b18.import(); }),
            "node 'p' (Pad): attribute 'mode' value 'wrap' is not supported (expected constant, "
            "reflect or edge)");
}

TEST(OnnxErrors, ConvWithIntegerInput) {
  ModelBuilder b(13);
  b.input("x", {1, 1, 4, 4}, onnx::TensorProto::INT8);
  b.init(f32_tensor("w", {1, 1, 1, 1}, {1.f}));
  b.node("Conv", {"x", "w"}, {"y"}, "c");
  b.output("y");
  EXPECT_EQ(
      user_error([&] { b.import(); }),
      "node 'c' (Conv): input 'X' has dtype int8; only float32, float16, bfloat16 and float64 "
      "are supported");
}

TEST(OnnxErrors, BadAutoPadGeluApproximateAndCastTarget) {
  ModelBuilder a = image_model(13);
  a.init(f32_tensor("w", {1, 3, 1, 1}, {1, 1, 1}));
  set_attr(a.node("Conv", {"x", "w"}, {"y"}, "c"), "auto_pad", "SAME_MIDDLE");
  a.output("y");
  EXPECT_EQ(user_error([&] { a.import(); }),
            "node 'c' (Conv): attribute 'auto_pad' value 'SAME_MIDDLE' is not supported (expected "
            "NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
  ModelBuilder g = image_model(20);
  set_attr(g.node("Gelu", {"x"}, {"y"}, "g"), "approximate", "erf");
  g.output("y");
  EXPECT_EQ(user_error([&] { g.import(); }),
            "node 'g' (Gelu): attribute 'approximate' value 'erf' is not supported (expected "
            "'none' or 'tanh')");
  ModelBuilder c = image_model(13);
  set_attr(c.node("Cast", {"x"}, {"y"}, "cast"), "to", int64_t(onnx::TensorProto::STRING));
  c.output("y");
  EXPECT_EQ(user_error([&] { c.import(); }),
            "node 'cast' (Cast): attribute 'to' value 8 (STRING) is not supported");
}

TEST(OnnxErrors, UnknownAttributeAndWrongAttributeType) {
  ModelBuilder b = image_model(13);
  set_attr(b.node("Relu", {"x"}, {"y"}, "r"), "alpha", 0.1);
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }), "node 'r' (Relu): unsupported attribute 'alpha'");
  ModelBuilder t = image_model(13);
  set_attr(t.node("Flatten", {"x"}, {"y"}, "f"), "axis", 1.0);
  t.output("y");
  EXPECT_EQ(user_error([&] { t.import(); }),
            "node 'f' (Flatten): attribute 'axis' has type FLOAT; expected INT");
}

// Pad's pads are still needed at compile time; Squeeze's axes no longer are.
TEST(OnnxErrors, NonConstantAxesInput) {
  ModelBuilder b = image_model(13);
  b.input("ax", {1}, onnx::TensorProto::INT64);
  b.node("Squeeze", {"x", "ax"}, {"y"}, "x1");
  b.output("y");
  // Squeeze's axes from a graph input are read at run time (value symbols): the node keeps it.
  auto g = b.import();
  ASSERT_EQ(g->nodes().size(), 1u);
  ASSERT_EQ(g->nodes()[0]->inputs.size(), 2u);
  EXPECT_EQ(g->nodes()[0]->inputs[1]->name, "ax");
  // So are Pad's pads (opset 11+) and Col2Im's image_shape and block_shape.
  ModelBuilder p = image_model(11);
  p.input("pads", {8}, onnx::TensorProto::INT64);
  p.node("Pad", {"x", "pads"}, {"y"}, "p");
  p.output("y");
  auto pg = p.import();
  ASSERT_EQ(pg->nodes().size(), 1u);
  EXPECT_EQ(pg->nodes()[0]->inputs.at(1)->name, "pads");
  ModelBuilder c = image_model(18);
  c.input("image_shape", {2}, onnx::TensorProto::INT64);
  c.input("block_shape", {2}, onnx::TensorProto::INT64);
  c.node("Col2Im", {"x", "image_shape", "block_shape"}, {"y"}, "c");
  c.output("y");
  auto cg = c.import();
  ASSERT_EQ(cg->nodes().size(), 1u);
  ASSERT_EQ(cg->nodes()[0]->inputs.size(), 3u);
  EXPECT_EQ(cg->nodes()[0]->inputs[1]->name, "image_shape");
  EXPECT_EQ(cg->nodes()[0]->inputs[2]->name, "block_shape");
}

TEST(OnnxErrors, UsedExtraOutputs) {
  // (Dropout's mask is supported: all ones at inference, see pool_matrix_extra_import_test.)
  ModelBuilder bn = image_model(9);
  for (const char* w : {"s", "b", "m", "v"}) bn.init(f32_tensor(w, {3}, {1, 1, 1}));
  bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"}, "bn");
  bn.node("Identity", {"rm"}, {"z"});
  bn.output("y");
  bn.output("z");
  EXPECT_EQ(user_error([&] { bn.import(); }),
            "node 'bn' (BatchNormalization): output 'rm' (training statistics) is not supported; "
            "only inference outputs can be used");
}

TEST(OnnxErrors, UnusedExtraOutputsAreFine) {
  ModelBuilder bn = image_model(9);
  for (const char* w : {"s", "b", "m", "v"}) bn.init(f32_tensor(w, {3}, {1, 1, 1}));
  bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"}, "bn");
  bn.output("y");
  EXPECT_EQ(bn.import()->nodes().size(), 1u);
}

TEST(OnnxErrors, TrainingModeIsRejected) {
  ModelBuilder bn = image_model(14);
  for (const char* w : {"s", "b", "m", "v"}) bn.init(f32_tensor(w, {3}, {1, 1, 1}));
  set_attr(bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}, "bn"), "training_mode",
           int64_t(1));
  bn.output("y");
  EXPECT_EQ(user_error([&] { bn.import(); }),
            "node 'bn' (BatchNormalization): attribute 'training_mode' value 1 is not supported "
            "(inference only)");
  ModelBuilder d = image_model(13);
  onnx::TensorProto t;
  t.set_name("train");
  t.set_data_type(onnx::TensorProto::BOOL);
  t.add_int32_data(1);
  d.init(t);
  d.node("Dropout", {"x", "", "train"}, {"y"}, "d");
  d.output("y");
  EXPECT_EQ(user_error([&] { d.import(); }),
            "node 'd' (Dropout): training mode (input 'training_mode' = true) is not supported");
}

TEST(OnnxErrors, MissingRequiredInputsAndAttributes) {
  ModelBuilder c = image_model(13);
  c.node("Concat", {"x", "x"}, {"y"}, "cat");
  c.output("y");
  EXPECT_EQ(user_error([&] { c.import(); }),
            "node 'cat' (Concat): required attribute 'axis' is missing");
  ModelBuilder g = image_model(13);
  g.node("Gemm", {"x", ""}, {"y"}, "fc");
  g.output("y");
  EXPECT_EQ(user_error([&] { g.import(); }),
            "node 'fc' (Gemm): required input 'B' (#1) is missing");
  ModelBuilder m = image_model(13);
  m.node("MaxPool", {"x"}, {"y"}, "mp");
  m.output("y");
  EXPECT_EQ(user_error([&] { m.import(); }),
            "node 'mp' (MaxPool): required attribute 'kernel_shape' is missing");
}

TEST(OnnxErrors, SplitSizesDoNotMatchOutputs) {
  ModelBuilder b = image_model(11);
  set_attr(b.node("Split", {"x"}, {"a", "b"}, "sp"), "split", Ints{1, 1, 1});
  b.output("a");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'sp' (Split): 'split' has 3 sizes but the node has 2 outputs");
}

TEST(OnnxErrors, ExternalFileRemovedAfterImportFailsOnFirstAccess) {
  TempDir dir;
  std::vector<float> data = {1, 2};
  dir.write("w.bin", std::string(reinterpret_cast<const char*>(data.data()), 8));
  ModelBuilder b(13);
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = t.add_external_data();
  e->set_key("location");
  e->set_value("w.bin");
  b.init(t);
  b.node("Identity", {"w"}, {"y"});
  b.output("y");
  auto g = b.import(dir.path());
  std::filesystem::remove(dir.file("w.bin"));
  const graph::Value* w = g->find_value("w");
  EXPECT_EQ(user_error([&] { w->constant->data(); }),
            "initializer 'w': external data file '" + dir.file("w.bin") + "' does not exist");
}

}  // namespace
}  // namespace ingot::frontend::testing
