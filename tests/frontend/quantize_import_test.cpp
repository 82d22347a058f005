// Import of the quantization ops: QuantizeLinear / DequantizeLinear attributes (output_dtype ->
// `to`), and the integer contractions rewritten into Cast / Sub / MatMul / Conv / QuantizeLinear
// (types checked after infer_types).
#include <gtest/gtest.h>

#include <algorithm>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;
using ops::OpKind;

onnx::TensorProto f32_scalar(const std::string& name, float v) {
  return f32_tensor(name, {}, {v});
}

TEST(OnnxQuantize, QuantizeOutputDtypeAxisAndBlockSize) {
  ModelBuilder b = model(21);
  b.init(f32_tensor("s", {2, 3, 2}, std::vector<float>(12, 0.5f)));
  auto* n = b.node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
  set_attr(n, "axis", int64_t(-1));
  set_attr(n, "block_size", int64_t(2));
  set_attr(n, "output_dtype", int64_t(onnx::TensorProto::INT8));
  set_attr(n, "saturate", int64_t(1));
  b.output("y");
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* q = find_node(*g, "q");
  EXPECT_EQ(q->op, OpKind::QuantizeLinear);
  EXPECT_EQ(q->attrs.get_int("to", -1), int64_t(DType::kI8));
  EXPECT_EQ(q->attrs.get_int("axis", -9), 2);
  EXPECT_EQ(q->attrs.get_int("block_size", -1), 2);
  EXPECT_EQ(q->outputs[0]->type.str(), "int8[2,3,4]");
}

TEST(OnnxQuantize, DequantizeOpset10AndPrecisionIsRejected) {
  ModelBuilder b(10);
  b.input("q", {4}, onnx::TensorProto::UINT8);
  b.init(f32_scalar("s", 0.5f));
  b.node("DequantizeLinear", {"q", "s"}, {"y"}, "dq");
  b.output("y");
  auto g = b.import();
  graph::infer_types(*g);
  EXPECT_EQ(find_node(*g, "dq")->outputs[0]->type.str(), "float32[4]");

  ModelBuilder p = model(25);
  p.init(f32_scalar("s", 0.5f));
  set_attr(p.node("QuantizeLinear", {"x", "s"}, {"y"}, "q"), "precision",
           int64_t(onnx::TensorProto::DOUBLE));
  p.output("y");
  EXPECT_EQ(user_error([&] { p.import(); }),
            "node 'q' (QuantizeLinear): attribute 'precision' is not supported (the division is "
            "done in the input's type)");
}

TEST(OnnxQuantize, MatMulIntegerBecomesInt32MatMulWithPerRowZeroPoint) {
  ModelBuilder b(10);
  b.input("a", {2, 3}, onnx::TensorProto::UINT8);
  b.input("b", {3, 4}, onnx::TensorProto::UINT8);
  b.input("azp", {2}, onnx::TensorProto::UINT8);
  b.node("MatMulInteger", {"a", "b", "azp"}, {"y"}, "mm");
  b.output("y");
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* mm = find_node(*g, "mm");
  EXPECT_EQ(mm->op, OpKind::MatMul);
  EXPECT_EQ(mm->outputs[0]->type.str(), "int32[2,4]");
  // a - azp with azp unsqueezed to [2, 1] (one zero point per row).
  const graph::Node* unsq = find_node(*g, "mm/a_zp_row");
  EXPECT_EQ(unsq->op, OpKind::Unsqueeze);
  EXPECT_EQ(unsq->outputs[0]->type.str(), "uint8[2,1]");
  EXPECT_EQ(mm->inputs[0]->producer->op, OpKind::Sub);
  EXPECT_EQ(mm->inputs[1]->producer->op, OpKind::Cast);  // no b_zero_point
}

TEST(OnnxQuantize, QLinearConvRequantizesThroughQuantizeLinear) {
  ModelBuilder b(10);
  b.input("x", {1, 1, 4, 4}, onnx::TensorProto::UINT8);
  b.input("w", {2, 1, 3, 3}, onnx::TensorProto::INT8);
  b.input("xzp", {}, onnx::TensorProto::UINT8);
  b.input("wzp", {2}, onnx::TensorProto::INT8);
  b.input("yzp", {}, onnx::TensorProto::UINT8);
  b.init(f32_scalar("xs", 0.5f));
  b.init(f32_tensor("ws", {2}, {0.25f, 0.125f}));
  b.init(f32_scalar("ys", 2.0f));
  b.node("QLinearConv", {"x", "xs", "xzp", "w", "ws", "wzp", "ys", "yzp"}, {"y"}, "qc");
  b.output("y");
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* qc = find_node(*g, "qc");
  EXPECT_EQ(qc->op, OpKind::QuantizeLinear);
  EXPECT_EQ(qc->outputs[0]->type.str(), "uint8[1,2,2,2]");
  const graph::Node* conv = find_node(*g, "qc/conv");
  EXPECT_EQ(conv->op, OpKind::Conv);
  EXPECT_EQ(conv->outputs[0]->type.dtype, DType::kF64);
  EXPECT_EQ(find_node(*g, "qc/w_zp_axis")->outputs[0]->type.str(), "int8[2,1,1,1]");
}

TEST(OnnxQuantize, QLinearMatMulNeedsAKnownOutputDtype) {
  ModelBuilder b(10);
  b.input("a", {2, 3}, onnx::TensorProto::UINT8);
  b.input("b", {3, 2}, onnx::TensorProto::UINT8);
  b.init(f32_scalar("s", 0.5f));
  b.node("Identity", {"a"}, {"zp"}, "id");  // a computed y_zero_point: dtype unknown at import
  b.node("QLinearMatMul", {"a", "s", "", "b", "s", "", "s", "zp"}, {"y"}, "qm");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "node 'qm' (QLinearMatMul): the dtype of 'y_zero_point' must be known at import (a "
            "constant or graph input)");
}

}  // namespace
}  // namespace ingot::frontend::testing
