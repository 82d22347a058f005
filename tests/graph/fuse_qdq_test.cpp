// fuse_qdq on small QDQ graphs: which patterns become QConv / QMatMul and with which numbers
// (multipliers, shift, int32 bias, saturation range), which stay float, and the dequantized
// constants it folds. The arithmetic against ONNX Runtime: tests/python/test_int8.py.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/transforms/fuse_qdq.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::F32;
using testing::T;

TensorPtr bytes_tensor(DType d, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  return std::make_shared<Tensor>(d, std::move(shape), std::move(bytes));
}
TensorPtr scalar_f32(float v) {
  return testing::f32_tensor({}, {v});
}
TensorPtr scalar_i8(int8_t v) {
  return bytes_tensor(DType::kI8, {}, {uint8_t(v)});
}
TensorPtr i32_vector(const std::vector<int32_t>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return bytes_tensor(DType::kI32, {int64_t(v.size())}, b);
}

Value* dequantize(Graph& g, const std::string& name, Value* q, TensorPtr scale, TensorPtr zp,
                  int64_t axis = -1) {
  Attrs a;
  if (axis >= 0) a.set("axis", axis);
  std::vector<Value*> in = {q, g.add_constant(name + "_s", std::move(scale))};
  if (zp) in.push_back(g.add_constant(name + "_z", std::move(zp)));
  return g.add_node(OpKind::DequantizeLinear, name, in, {name + "_out"}, a)->outputs[0];
}

Value* quantize(Graph& g, const std::string& name, Value* x, float scale, int8_t zp) {
  return g
      .add_node(OpKind::QuantizeLinear, name,
                {x, g.add_constant(name + "_s", scalar_f32(scale)),
                 g.add_constant(name + "_z", scalar_i8(zp))},
                {name + "_out"})
      ->outputs[0];
}

// x_q [1,2,4,4] int8 -> DQ(0.5, zp 3) -> Conv(DQ(W int8 [3,2,3,3], per-channel scales),
// bias DQ(int32, x_scale * w_scale)) [-> Relu] -> Q(0.25, zp -5).
struct ConvGraph {
  Graph g;
  Value* xq = nullptr;
  std::vector<float> w_scales = {0.01f, 0.02f, 0.04f};
  ConvGraph(bool relu, bool per_channel = true) {
    xq = g.add_value("xq", T(DType::kI8, {1, 2, 4, 4}));
    g.inputs = {xq};
    Value* x = dequantize(g, "dqx", xq, scalar_f32(0.5f), scalar_i8(3));
    std::vector<uint8_t> w(3 * 2 * 9);
    for (size_t i = 0; i < w.size(); ++i) w[i] = uint8_t(int8_t(int(i % 7) - 3));
    Value* wq = g.add_constant("wq", bytes_tensor(DType::kI8, {3, 2, 3, 3}, w));
    Value* wd = per_channel ? dequantize(g, "dqw", wq, testing::f32_tensor({3}, w_scales),
                                         bytes_tensor(DType::kI8, {3}, {0, 0, 0}), 0)
                            : dequantize(g, "dqw", wq, scalar_f32(0.02f), scalar_i8(0));
    std::vector<float> bias_scales;
    for (float s : w_scales) bias_scales.push_back(0.5f * s);
    Value* bq = g.add_constant("bq", i32_vector({100, -7, 0}));
    Value* b =
        dequantize(g, "dqb", bq, testing::f32_tensor({3}, bias_scales), i32_vector({0, 0, 0}), 0);
    Attrs a;
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    Value* y = g.add_node(OpKind::Conv, "conv", {x, wd, b}, {"y"}, a)->outputs[0];
    if (relu) y = g.add_node(OpKind::Relu, "relu", {y}, {"r"})->outputs[0];
    g.outputs = {quantize(g, "qy", y, 0.25f, -5)};
    infer_types(g);
  }
};

TEST(FuseQdq, ConvBecomesQConvWithFixedPointRequantization) {
  ConvGraph c(/*relu=*/true);
  fuse_qdq(c.g);
  verify_graph(c.g);
  ASSERT_EQ(count_ops(c.g, OpKind::QConv), 1);
  EXPECT_EQ(count_ops(c.g, OpKind::Conv), 0);
  EXPECT_EQ(count_ops(c.g, OpKind::DequantizeLinear), 0);
  EXPECT_EQ(count_ops(c.g, OpKind::QuantizeLinear), 0);
  const Node& q = *c.g.outputs[0]->producer;
  EXPECT_EQ(q.op, OpKind::QConv);
  EXPECT_EQ(c.g.outputs[0]->name, "qy_out");
  EXPECT_EQ(q.inputs[0], c.xq);
  EXPECT_EQ(q.attrs.get_int("x_zero_point", 0), 3);
  EXPECT_EQ(q.attrs.get_int("y_zero_point", 0), -5);
  EXPECT_EQ(q.attrs.get_int("qmin", 0), -5);  // the ReLU: saturate at the zero point
  EXPECT_EQ(q.attrs.get_int("qmax", 0), 127);
  EXPECT_EQ(q.attrs.get_ints("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  // Bias: dequantized with x_scale * w_scale, so the int32 values come back as they were.
  const Tensor& bias = *q.inputs[2]->constant;
  EXPECT_EQ(bias.get_i64(0), 100);
  EXPECT_EQ(bias.get_i64(1), -7);
  // Multipliers: 0.5 * w_scale / 0.25 = 0.02, 0.04, 0.08 as m / 2^shift.
  const Tensor& m = *q.inputs[3]->constant;
  const int shift = int(q.attrs.get_int("shift", 0));
  for (int ch = 0; ch < 3; ++ch) {
    double real = 0.5 * double(c.w_scales[size_t(ch)]) / 0.25;
    EXPECT_NEAR(std::ldexp(double(m.get_i64(ch)), -shift), real, real * 1e-8) << ch;
  }
  EXPECT_LE(m.get_i64(2), 2147483647);
  EXPECT_GT(m.get_i64(2), 1073741824);  // the largest uses the full 31 bits
}

TEST(FuseQdq, WithoutReluTheRangeIsTheTypes) {
  ConvGraph c(/*relu=*/false, /*per_channel=*/false);
  fuse_qdq(c.g);
  const Node& q = *c.g.outputs[0]->producer;
  ASSERT_EQ(q.op, OpKind::QConv);
  EXPECT_EQ(q.attrs.get_int("qmin", 0), -128);
  EXPECT_EQ(q.attrs.get_int("qmax", 0), 127);
}

TEST(FuseQdq, FloatConvOutputReadElsewhereStaysFloatAndItsWeightsFold) {
  ConvGraph c(/*relu=*/false);
  // The Conv's float output is also a graph output: no integer kernel can produce it.
  Value* conv_out = c.g.find_value("y");
  c.g.outputs.push_back(conv_out);
  fuse_qdq(c.g);
  verify_graph(c.g);
  EXPECT_EQ(count_ops(c.g, OpKind::QConv), 0);
  EXPECT_EQ(count_ops(c.g, OpKind::Conv), 1);
  // The weight and bias dequantizations became float constants; the activation's stays.
  EXPECT_EQ(count_ops(c.g, OpKind::DequantizeLinear), 1);
  const Node& conv = *conv_out->producer;
  ASSERT_TRUE(conv.inputs[1]->is_constant());
  EXPECT_EQ(conv.inputs[1]->type.dtype, DType::kF32);
  // W[0] = int8(0 % 7 - 3) = -3 at scale 0.01 (channel 0); W of channel 2 at 0.04.
  EXPECT_FLOAT_EQ(conv.inputs[1]->constant->data_as<float>()[0], -3 * 0.01f);
  EXPECT_FLOAT_EQ(conv.inputs[1]->constant->data_as<float>()[36], float(36 % 7 - 3) * 0.04f);
  EXPECT_FLOAT_EQ(conv.inputs[2]->constant->data_as<float>()[0], 100 * 0.5f * 0.01f);
}

TEST(FuseQdq, GemmWithTransposedWeightsBecomesQMatMul) {
  Graph g;
  Value* aq = g.add_value("aq", T(DType::kU8, {2, 3}));
  g.inputs = {aq};
  Value* a =
      dequantize(g, "dqa", aq, scalar_f32(0.1f), bytes_tensor(DType::kU8, {}, {uint8_t(128)}));
  // B^T [N=2, K=3] uint8 with zero point 7.
  Value* bq = g.add_constant("bq", bytes_tensor(DType::kU8, {2, 3}, {1, 2, 3, 4, 5, 6}));
  Value* b = dequantize(g, "dqb", bq, scalar_f32(0.2f), bytes_tensor(DType::kU8, {}, {7}));
  Attrs at;
  at.set("transB", int64_t(1));
  Value* y =
      g.add_node(OpKind::Gemm, "gemm",
                 {a, b, g.add_constant("c", testing::f32_tensor({2}, {0.5f, -0.3f}))}, {"y"}, at)
          ->outputs[0];
  Value* out = g.add_node(OpKind::QuantizeLinear, "qy",
                          {y, g.add_constant("ys", scalar_f32(0.05f)),
                           g.add_constant("yz", bytes_tensor(DType::kU8, {}, {10}))},
                          {"q"})
                   ->outputs[0];
  g.outputs = {out};
  infer_types(g);
  fuse_qdq(g);
  verify_graph(g);
  ASSERT_EQ(count_ops(g, OpKind::QMatMul), 1);
  const Node& q = *g.outputs[0]->producer;
  EXPECT_EQ(q.attrs.get_int("x_zero_point", 0), 128);
  EXPECT_EQ(q.attrs.get_int("w_zero_point", 0), 7);
  EXPECT_EQ(q.attrs.get_int("qmin", -1), 0);
  EXPECT_EQ(q.attrs.get_int("qmax", 0), 255);
  // B transposed to [K, N]: column n of B^T's row n.
  const Tensor& w = *q.inputs[1]->constant;
  EXPECT_EQ(w.shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ((std::vector<int64_t>{w.get_i64(0), w.get_i64(1), w.get_i64(2), w.get_i64(3)}),
            (std::vector<int64_t>{1, 4, 2, 5}));
  // Float bias -> round(b / (0.1 * 0.2)).
  EXPECT_EQ(q.inputs[2]->constant->get_i64(0), 25);
  EXPECT_EQ(q.inputs[2]->constant->get_i64(1), -15);
}

// ONNX Runtime's default: uint8 activations (zero point 128) x symmetric int8 weights. The
// product becomes IntMatMul with the activation's zero point folded into the int32 bias
// (bias - 128 * column sum of B) and Requantize after it.
TEST(FuseQdq, SymmetricInt8WeightsSplitIntoIntMatMulAndRequantize) {
  Graph g;
  Value* aq = g.add_value("aq", T(DType::kU8, {2, 4}));
  g.inputs = {aq};
  Value* a =
      dequantize(g, "dqa", aq, scalar_f32(0.1f), bytes_tensor(DType::kU8, {}, {uint8_t(128)}));
  // B [K=4, N=2] int8, zero point 0: columns (1, -2, 3, 4) and (-5, 6, 7, -8).
  Value* bq = g.add_constant("bq", bytes_tensor(DType::kI8, {4, 2},
                                                {1, uint8_t(int8_t(-5)), uint8_t(int8_t(-2)), 6, 3,
                                                 7, 4, uint8_t(int8_t(-8))}));
  Value* b = dequantize(g, "dqb", bq, scalar_f32(0.2f), scalar_i8(0));
  Value* y = g.add_node(OpKind::MatMul, "mm", {a, b}, {"y"})->outputs[0];
  Value* out = g.add_node(OpKind::QuantizeLinear, "qy",
                          {y, g.add_constant("ys", scalar_f32(0.05f)),
                           g.add_constant("yz", bytes_tensor(DType::kU8, {}, {10}))},
                          {"q"})
                   ->outputs[0];
  g.outputs = {out};
  infer_types(g);
  fuse_qdq(g);
  verify_graph(g);
  ASSERT_EQ(count_ops(g, OpKind::IntMatMul), 1);
  ASSERT_EQ(count_ops(g, OpKind::QMatMul), 0);
  const Node& rq = *g.outputs[0]->producer;
  ASSERT_EQ(rq.op, OpKind::Requantize);
  EXPECT_EQ(rq.attrs.get_int("y_zero_point", 0), 10);
  EXPECT_FALSE(rq.attrs.has("x_zero_point"));
  const Node& p = *rq.inputs[0]->producer;
  ASSERT_EQ(p.op, OpKind::IntMatMul);
  EXPECT_EQ(p.inputs[0], aq);
  // Column sums 6 and 0: bias 0 - 128 * 6 and 0.
  EXPECT_EQ(p.inputs[2]->constant->get_i64(0), -768);
  EXPECT_EQ(p.inputs[2]->constant->get_i64(1), 0);
  EXPECT_EQ(p.outputs[0]->type.str(), "int32[2,2]");
}

TEST(FixedPointMultipliers, OneShiftFullPrecisionForTheLargest) {
  auto f = fixed_point_multipliers({0.75, 0.001, 3e-7});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->shift, 31);  // 0.75 * 2^31 < 2^31 - 1 <= 0.75 * 2^32
  EXPECT_EQ(f->multipliers[0], 1610612736);
  EXPECT_NEAR(std::ldexp(double(f->multipliers[1]), -f->shift), 0.001, 1e-9);
  auto big = fixed_point_multipliers({1000.0});
  ASSERT_TRUE(big);
  EXPECT_EQ(big->shift, 21);
  EXPECT_LE(big->multipliers[0], 2147483647);
  EXPECT_FALSE(fixed_point_multipliers({0.0}));
  EXPECT_FALSE(fixed_point_multipliers({1.0, -2.0}));
  EXPECT_FALSE(fixed_point_multipliers({3e9}));
  EXPECT_FALSE(fixed_point_multipliers({}));
}

}  // namespace
}  // namespace ingot::graph
