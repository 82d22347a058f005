// The 8-bit blocked convolution's graph form: fuse_qdq makes a uint8 x symmetric-int8 QDQ Conv a
// QConv only for targets with the blocked 8-bit kernels, and layout_nchwc makes that QConv a
// QConvNCHWc: input blocked in groups of 4 lanes, padded explicitly with its zero point, the
// zero point folded into the int32 bias (bias - zx * sum of the channel's weights), the
// per-tensor QuantizeLinear / DequantizeLinear between convs blocked too, and a residual block's
// DequantizeLinear + Add + QuantizeLinear fused into the conv (fuse_qconv_residual). (Numbers
// against ONNX Runtime: tests/python/test_int8.py.)
#include <gtest/gtest.h>

#include <cstring>

#include "graph/transforms/dead_code.h"
#include "graph/transforms/fuse_qconv_residual.h"
#include "graph/transforms/fuse_qdq.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::T;

TensorPtr bytes_tensor(DType d, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  return std::make_shared<Tensor>(d, std::move(shape), std::move(bytes));
}

Value* dequantize(Graph& g, const std::string& name, Value* q, TensorPtr scale, TensorPtr zp,
                  int64_t axis = -1) {
  Attrs a;
  if (axis >= 0) a.set("axis", axis);
  return g
      .add_node(OpKind::DequantizeLinear, name,
                {q, g.add_constant(name + "_s", std::move(scale)),
                 g.add_constant(name + "_z", std::move(zp))},
                {name + "_out"}, a)
      ->outputs[0];
}

Value* quantize_u8(Graph& g, const std::string& name, Value* x, float scale, uint8_t zp) {
  return g
      .add_node(OpKind::QuantizeLinear, name,
                {x, g.add_constant(name + "_s", testing::f32_tensor({}, {scale})),
                 g.add_constant(name + "_z", bytes_tensor(DType::kU8, {}, {zp}))},
                {name + "_out"})
      ->outputs[0];
}

// A QDQ conv: DQ(x_q uint8, 0.05, zp zx) -> Conv(DQ(W int8 [oc, ic, k, k], per-channel, zp 0),
// bias DQ(int32)) with pads p -> Relu -> Q(0.1, zp 7).
Value* qdq_conv(Graph& g, const std::string& name, Value* xq, int64_t ic, uint8_t zx, int64_t oc,
                int64_t k, int64_t p) {
  Value* x = dequantize(g, name + "_dqx", xq, testing::f32_tensor({}, {0.05f}),
                        bytes_tensor(DType::kU8, {}, {zx}));
  std::vector<uint8_t> w(size_t(oc * ic * k * k));
  for (size_t i = 0; i < w.size(); ++i) w[i] = uint8_t(int8_t(int(i * 7 % 11) - 5));
  std::vector<float> ws(static_cast<size_t>(oc)), bs(static_cast<size_t>(oc));
  for (int64_t c = 0; c < oc; ++c) ws[size_t(c)] = 0.01f * float(1 + c % 3);
  for (int64_t c = 0; c < oc; ++c) bs[size_t(c)] = 0.05f * ws[size_t(c)];
  Value* wd = dequantize(g, name + "_dqw",
                         g.add_constant(name + "_wq", bytes_tensor(DType::kI8, {oc, ic, k, k}, w)),
                         testing::f32_tensor({oc}, ws),
                         bytes_tensor(DType::kI8, {oc}, std::vector<uint8_t>(size_t(oc), 0)), 0);
  std::vector<int32_t> b(static_cast<size_t>(oc));
  for (int64_t c = 0; c < oc; ++c) b[size_t(c)] = int32_t(c * 37 - 300);
  std::vector<uint8_t> bb(b.size() * 4);
  std::memcpy(bb.data(), b.data(), bb.size());
  Value* bias = dequantize(
      g, name + "_dqb", g.add_constant(name + "_bq", bytes_tensor(DType::kI32, {oc}, bb)),
      testing::f32_tensor({oc}, bs),
      bytes_tensor(DType::kI32, {oc}, std::vector<uint8_t>(size_t(oc) * 4, 0)), 0);
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("pads", std::vector<int64_t>{p, p, p, p});
  Value* y = g.add_node(OpKind::Conv, name, {x, wd, bias}, {name + "_y"}, a)->outputs[0];
  y = g.add_node(OpKind::Relu, name + "_relu", {y}, {name + "_r"})->outputs[0];
  return quantize_u8(g, name + "_q", y, 0.1f, 7);
}

// x_q [1, 3, 8, 8] uint8 -> 3x3 conv (3 -> 20, pads 1, zx 128) -> 1x1 conv (20 -> 32, zx 7).
struct TwoConvs {
  Graph g;
  TwoConvs() {
    Value* xq = g.add_value("xq", T(DType::kU8, {1, 3, 8, 8}));
    g.inputs = {xq};
    Value* y1 = qdq_conv(g, "c1", xq, 3, 128, 20, 3, 1);
    g.outputs = {qdq_conv(g, "c2", y1, 20, 7, 32, 1, 0)};
    infer_types(g);
  }
};

const Node* producer_of_op(const Graph& g, OpKind op, int index) {
  int seen = 0;
  for (const auto& n : g.nodes())
    if (n->op == op && seen++ == index) return n.get();
  return nullptr;
}

TEST(LayoutNchwcInt8, MixedFamiliesAreQConvOnlyForTheBlockedKernels) {
  TwoConvs plain;
  fuse_qdq(plain.g);
  EXPECT_EQ(count_ops(plain.g, OpKind::QConv), 0);  // float arithmetic elsewhere
  EXPECT_EQ(count_ops(plain.g, OpKind::Conv), 2);
  TwoConvs blocked;
  fuse_qdq(blocked.g, /*blocked_int8_convs=*/true);
  verify_graph(blocked.g);
  EXPECT_EQ(count_ops(blocked.g, OpKind::QConv), 2);
  EXPECT_EQ(count_ops(blocked.g, OpKind::Conv), 0);
}

TEST(LayoutNchwcInt8, QConvBecomesQConvNchwcWithItsZeroPointFolded) {
  TwoConvs t;
  fuse_qdq(t.g, true);
  const Node* q1 = producer_of_op(t.g, OpKind::QConv, 0);
  ASSERT_NE(q1, nullptr);
  const TensorPtr w = q1->inputs[1]->constant;
  const TensorPtr bias = q1->inputs[2]->constant;
  convert_layout_nchwc(t.g, vector_channel_blocks(512));
  remove_dead_code(t.g);
  verify_graph(t.g);
  ASSERT_EQ(count_ops(t.g, OpKind::QConvNCHWc), 2);
  EXPECT_EQ(count_ops(t.g, OpKind::QConv), 0);
  const Node* c1 = producer_of_op(t.g, OpKind::QConvNCHWc, 0);
  const Node* c2 = producer_of_op(t.g, OpKind::QConvNCHWc, 1);
  if (c1->inputs[1]->type.shape[0].value != 20) std::swap(c1, c2);
  // c1: three channels in one block of 4 lanes, padded by 1 with the zero point 128.
  const Node* pad = c1->inputs[0]->producer;
  ASSERT_EQ(pad->op, OpKind::Pad);
  EXPECT_EQ(pad->attrs.get_float("value", 0), 128.0);
  EXPECT_EQ(c1->inputs[0]->type.shape.back().value, 4);
  EXPECT_EQ(c1->inputs[0]->type.shape[2].value, 10);
  EXPECT_EQ(c1->inputs[0]->type.dtype, DType::kU8);
  EXPECT_EQ(c1->attrs.get_ints("pads", {}), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_FALSE(c1->attrs.has("x_zero_point"));
  // The bias: b - 128 * sum of the channel's 27 weights.
  const Tensor& folded = *c1->inputs[2]->constant;
  for (int64_t c = 0; c < 20; ++c) {
    int64_t sum = 0;
    for (int64_t k = 0; k < 27; ++k) sum += w->get_i64(c * 27 + k);
    EXPECT_EQ(folded.get_i64(c), bias->get_i64(c) - 128 * sum) << c;
  }
  // The requantization as float32 scales: x_scale * w_scale[c] / y_scale.
  ASSERT_EQ(c1->inputs[3]->type.dtype, DType::kF32);
  EXPECT_FALSE(c1->attrs.has("shift"));
  for (int64_t c = 0; c < 20; ++c)
    EXPECT_NEAR(c1->inputs[3]->constant->get_f64(c), 0.05 * 0.01 * double(1 + c % 3) / 0.1, 1e-9);
  // Zero past the 20 channels to the output block's 32 lanes: the epilogue reads a scale per
  // lane without clamping the channel (the clamp made each vector's read a gather).
  ASSERT_EQ(c1->inputs[3]->type.num_elements(), 32);
  for (int64_t c = 20; c < 32; ++c) EXPECT_EQ(c1->inputs[3]->constant->get_f64(c), 0.0) << c;
  // Its weights zero padded to the block's 4 input channels.
  EXPECT_EQ(c1->inputs[1]->type.shape,
            (std::vector<Dim>{Dim::fixed(20), Dim::fixed(4), Dim::fixed(3), Dim::fixed(3)}));
  EXPECT_EQ(c1->inputs[1]->constant->get_i64(27), 0);  // channel 0, input 3, tap 0
  EXPECT_EQ(c1->inputs[1]->constant->get_i64(10), w->get_i64(10));
  // Its 20 outputs come in a block of 32, which c2 reads as it is (no conversion, no Pad for a
  // 1x1): its first 20 lanes, whole groups of 4, so its weights need no padding.
  EXPECT_EQ(c1->outputs[0]->type.shape.back().value, 32);
  EXPECT_EQ(c1->outputs[0]->type.dtype, DType::kU8);
  EXPECT_EQ(c2->inputs[0], c1->outputs[0]);
  EXPECT_EQ(c2->inputs[1]->type.shape[1].value, 20);
  EXPECT_EQ(t.g.outputs[0]->producer->op, OpKind::LayoutFromBlocked);
  EXPECT_EQ(t.g.outputs[0]->type, T(DType::kU8, {1, 32, 8, 8}));
}

TEST(LayoutNchwcInt8, DepthwiseQConvKeepsItsInputBlockAndPadsWithItsZeroPoint) {
  // x_q [1, 16, 8, 8] -> 1x1 conv (16 -> 48) -> depthwise 3x3 (48, pads 1, zx 7).
  Graph g;
  Value* xq = g.add_value("xq", T(DType::kU8, {1, 16, 8, 8}));
  g.inputs = {xq};
  Value* y1 = qdq_conv(g, "c1", xq, 16, 3, 48, 1, 0);
  Value* x = dequantize(g, "dw_dqx", y1, testing::f32_tensor({}, {0.05f}),
                        bytes_tensor(DType::kU8, {}, {7}));
  std::vector<uint8_t> w(48 * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = uint8_t(int8_t(int(i % 9) - 4));
  Value* wd =
      dequantize(g, "dw_dqw", g.add_constant("dw_wq", bytes_tensor(DType::kI8, {48, 1, 3, 3}, w)),
                 testing::f32_tensor({}, {0.02f}), bytes_tensor(DType::kI8, {}, {0}));
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("group", int64_t(48));
  Value* y = g.add_node(OpKind::Conv, "dw", {x, wd}, {"dw_y"}, a)->outputs[0];
  g.outputs = {quantize_u8(g, "dw_q", y, 0.1f, 7)};
  infer_types(g);
  fuse_qdq(g, true);
  ASSERT_EQ(count_ops(g, OpKind::QConv), 2);
  convert_layout_nchwc(g, vector_channel_blocks(512));
  remove_dead_code(g);
  verify_graph(g);
  ASSERT_EQ(count_ops(g, OpKind::QConvNCHWc), 2);
  const Node* dw = g.outputs[0]->producer->inputs[0]->producer;
  ASSERT_EQ(dw->op, OpKind::QConvNCHWc);
  EXPECT_EQ(dw->attrs.get_int("group", 1), 48);
  const Node* pad = dw->inputs[0]->producer;
  ASSERT_EQ(pad->op, OpKind::Pad);
  EXPECT_EQ(pad->attrs.get_float("value", 0), 7.0);
  // The 1x1 conv's output block (48 channels: 16-lane blocks), kept by the depthwise conv.
  EXPECT_EQ(pad->inputs[0]->producer->op, OpKind::QConvNCHWc);
  EXPECT_EQ(dw->outputs[0]->type.shape.back(), pad->inputs[0]->type.shape.back());
  // No bias: the fold alone, -7 * (sum of the channel's 9 taps).
  const Tensor& folded = *dw->inputs[2]->constant;
  for (int64_t c = 0; c < 48; ++c) {
    int64_t sum = 0;
    for (int64_t k = 0; k < 9; ++k) sum += int8_t(w[size_t(c * 9 + k)]);
    EXPECT_EQ(folded.get_i64(c), -7 * sum) << c;
  }
  EXPECT_EQ(dw->inputs[3]->type.dtype, DType::kF32);  // the requantization's scales
}

TEST(LayoutNchwcInt8, BlockedQuantizationOpsJoinTheChain) {
  // A residual pair: DQ(y1) + DQ(y2) -> Q, between two blocked convs: the DQs, the Add and the
  // Q run blocked, so no layout conversion sits between the convs.
  Graph g;
  Value* xq = g.add_value("xq", T(DType::kU8, {1, 16, 6, 6}));
  g.inputs = {xq};
  Value* y1 = qdq_conv(g, "c1", xq, 16, 3, 16, 1, 0);
  Value* y2 = qdq_conv(g, "c2", y1, 16, 7, 16, 3, 1);
  auto dq = [&](const std::string& n, Value* v) {
    return dequantize(g, n, v, testing::f32_tensor({}, {0.1f}), bytes_tensor(DType::kU8, {}, {7}));
  };
  Value* sum = g.add_node(OpKind::Add, "add", {dq("d1", y1), dq("d2", y2)}, {"sum"})->outputs[0];
  g.outputs = {qdq_conv(g, "c3", quantize_u8(g, "qs", sum, 0.2f, 3), 16, 3, 16, 1, 0)};
  infer_types(g);
  fuse_qdq(g, true);
  convert_layout_nchwc(g, vector_channel_blocks(512));
  remove_dead_code(g);
  verify_graph(g);
  EXPECT_EQ(count_ops(g, OpKind::QConvNCHWc), 3);
  EXPECT_EQ(count_ops(g, OpKind::LayoutToBlocked), 1);    // the input
  EXPECT_EQ(count_ops(g, OpKind::LayoutFromBlocked), 1);  // the output
}

// The residual pair after layout_nchwc, then fuse_qconv_residual: Q(DQ(c2) + DQ(c1)) runs in
// c2's epilogue (c1's output its fifth input, the scales and zero points its attributes), and
// not where c2's output has another reader.
TEST(LayoutNchwcInt8, ResidualAddRunsInTheConvsEpilogue) {
  for (bool shared : {false, true}) {
    Graph g;
    Value* xq = g.add_value("xq", T(DType::kU8, {1, 16, 6, 6}));
    g.inputs = {xq};
    Value* y1 = qdq_conv(g, "c1", xq, 16, 3, 16, 1, 0);
    Value* y2 = qdq_conv(g, "c2", y1, 16, 7, 16, 3, 1);
    Value* d1 =
        dequantize(g, "d1", y1, testing::f32_tensor({}, {0.1f}), bytes_tensor(DType::kU8, {}, {7}));
    Value* d2 = dequantize(g, "d2", y2, testing::f32_tensor({}, {0.25f}),
                           bytes_tensor(DType::kU8, {}, {5}));
    Value* sum = g.add_node(OpKind::Add, "add", {d2, d1}, {"sum"})->outputs[0];
    g.outputs = {qdq_conv(g, "c3", quantize_u8(g, "qs", sum, 0.2f, 3), 16, 3, 16, 1, 0)};
    if (shared) g.outputs.push_back(y2);  // c2's output read outside the residual
    infer_types(g);
    fuse_qdq(g, true);
    convert_layout_nchwc(g, vector_channel_blocks(512));
    EXPECT_EQ(fuse_qconv_residual(g), shared ? 0 : 1);
    remove_dead_code(g);
    verify_graph(g);
    EXPECT_EQ(count_ops(g, OpKind::QConvNCHWc), 3);
    EXPECT_EQ(count_ops(g, OpKind::Add), shared ? 1 : 0);
    if (shared) continue;
    const Node* c1 = producer_of_op(g, OpKind::QConvNCHWc, 0);
    const Node* c2 = producer_of_op(g, OpKind::QConvNCHWc, 1);
    ASSERT_EQ(c2->inputs.size(), 5u);
    EXPECT_EQ(c2->inputs[4], c1->outputs[0]);
    EXPECT_EQ(c2->attrs.get_float("y_scale", 0), double(0.25f));
    EXPECT_EQ(c2->attrs.get_int("y_dequant_zero_point", 0), 5);
    EXPECT_EQ(c2->attrs.get_float("z_scale", 0), double(0.1f));
    EXPECT_EQ(c2->attrs.get_int("z_zero_point", 0), 7);
    EXPECT_EQ(c2->attrs.get_float("out_scale", 0), double(0.2f));
    EXPECT_EQ(c2->attrs.get_int("out_zero_point", 0), 3);
    EXPECT_EQ(c2->outputs[0]->type.dtype, DType::kU8);
    // c3 reads c2's fused output directly.
    const Node* c3 = producer_of_op(g, OpKind::QConvNCHWc, 2);
    EXPECT_EQ(c3->inputs[0], c2->outputs[0]);
  }
}

}  // namespace
}  // namespace ingot::graph
