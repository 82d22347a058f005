// End to end: ONNX models built in the test -> ingot compile -> runtime run, compared with plain
// reference loops written here.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"

namespace ingot::testing {
namespace {

void expect_close(const std::vector<float>& got, const std::vector<float>& want,
                  float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.f + std::fabs(want[i]))) << "at element " << i;
  }
}

TEST(EndToEnd, GroupedStridedConvWithBiasAndRelu) {
  const int N = 1, C = 4, H = 7, W = 9, K = 6, G = 2, R = 3, S = 3, stride = 2, pad = 1;
  const int CG = C / G, KG = K / G;
  const int OH = (H + 2 * pad - R) / stride + 1, OW = (W + 2 * pad - S) / stride + 1;
  auto x = random_vector(N * C * H * W, 1), w = random_vector(K * CG * R * S, 2),
       b = random_vector(K, 3);
  OnnxModelBuilder mb;
  mb.input("x", {N, C, H, W});
  mb.initializer("w", {K, CG, R, S}, w);
  mb.initializer("b", {K}, b);
  auto* conv = mb.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  OnnxModelBuilder::attr_ints(conv, "strides", {stride, stride});
  OnnxModelBuilder::attr_ints(conv, "pads", {pad, pad, pad, pad});
  OnnxModelBuilder::attr_int(conv, "group", G);
  mb.node("Relu", {"c"}, {"y"}, "relu");
  mb.output("y");
  auto dir = temp_dir("conv");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  m.set_input("x", x);
  m.run();
  std::vector<float> want(N * K * OH * OW);
  for (int k = 0; k < K; ++k)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow) {
        float acc = b[k];
        int g = k / KG;
        for (int c = 0; c < CG; ++c)
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < S; ++s) {
              int ih = oh * stride - pad + r, iw = ow * stride - pad + s;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              acc += x[((g * CG + c) * H + ih) * W + iw] * w[((k * CG + c) * R + r) * S + s];
            }
        want[(k * OH + oh) * OW + ow] = std::max(acc, 0.f);
      }
  std::vector<int64_t> shape;
  auto got = m.output(0, &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{N, K, OH, OW}));
  expect_close(got, want);
}

TEST(EndToEnd, BatchedMatMulBiasSoftmax) {
  const int B = 2, M = 3, Kd = 5, Nd = 4;
  auto a = random_vector(B * M * Kd, 4), w = random_vector(Kd * Nd, 5), bias = random_vector(Nd, 6);
  OnnxModelBuilder mb;
  mb.input("a", {B, M, Kd});
  mb.initializer("w", {Kd, Nd}, w);
  mb.initializer("bias", {Nd}, bias);
  mb.node("MatMul", {"a", "w"}, {"mm"}, "mm");
  mb.node("Add", {"mm", "bias"}, {"logits"}, "add");
  auto* sm = mb.node("Softmax", {"logits"}, {"p"}, "softmax");
  OnnxModelBuilder::attr_int(sm, "axis", -1);
  mb.output("p");
  auto dir = temp_dir("matmul_softmax");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  m.set_input("a", a);
  m.run();
  std::vector<float> want(B * M * Nd);
  for (int bm = 0; bm < B * M; ++bm) {
    std::vector<double> row(Nd);
    double mx = -1e30, sum = 0;
    for (int n = 0; n < Nd; ++n) {
      double acc = bias[n];
      for (int k = 0; k < Kd; ++k) acc += double(a[bm * Kd + k]) * w[k * Nd + n];
      row[n] = acc;
      mx = std::max(mx, acc);
    }
    for (auto& v : row) sum += std::exp(v - mx);
    for (int n = 0; n < Nd; ++n) want[bm * Nd + n] = float(std::exp(row[n] - mx) / sum);
  }
  expect_close(m.output(0), want);
}

TEST(EndToEnd, GemmTransBAlphaBetaWithSymbolicBatchBound) {
  const int Nb = 3, Kd = 4, Od = 5;
  auto x = random_vector(Nb * Kd, 7), w = random_vector(Od * Kd, 8), c = random_vector(Od, 9);
  OnnxModelBuilder mb(11);
  mb.input("x", {-1, Kd}, onnx::TensorProto::FLOAT, {"batch", ""});
  mb.initializer("w", {Od, Kd}, w);
  mb.initializer("c", {Od}, c);
  auto* g = mb.node("Gemm", {"x", "w", "c"}, {"y"}, "gemm");
  OnnxModelBuilder::attr_int(g, "transB", 1);
  OnnxModelBuilder::attr_float(g, "alpha", 0.5f);
  OnnxModelBuilder::attr_float(g, "beta", 2.0f);
  mb.output("y");
  auto dir = temp_dir("gemm");
  mb.save(dir / "m.onnx");
  driver::CompileOptions opts;
  opts.input_shapes = driver::parse_input_shapes("x:[3,4]");
  CompiledModel m(dir / "m.onnx", dir / "m.so", opts);
  m.set_input("x", x);
  m.run();
  std::vector<float> want(Nb * Od);
  for (int i = 0; i < Nb; ++i)
    for (int o = 0; o < Od; ++o) {
      float acc = 0;
      for (int k = 0; k < Kd; ++k) acc += x[i * Kd + k] * w[o * Kd + k];
      want[i * Od + o] = 0.5f * acc + 2.0f * c[o];
    }
  std::vector<int64_t> shape;
  auto got = m.output(0, &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{Nb, Od}));
  expect_close(got, want);
  const IngotTensorInfo* in = ingot_model_input_info(m.model(), 0);
  ASSERT_NE(in, nullptr);
  EXPECT_STREQ(in->dim_names[0], "batch");
}

TEST(EndToEnd, ReshapeTransposeReduceMeanAndTwoOutputs) {
  auto x = random_vector(2 * 3 * 4, 10);
  OnnxModelBuilder mb;
  mb.input("x", {2, 3, 4});
  mb.initializer_i64("shape", {2}, {6, 4});
  mb.node("Reshape", {"x", "shape"}, {"r"}, "reshape");
  auto* t = mb.node("Transpose", {"r"}, {"t"}, "transpose");
  OnnxModelBuilder::attr_ints(t, "perm", {1, 0});
  auto* rm = mb.node("ReduceMean", {"t"}, {"m"}, "mean");
  OnnxModelBuilder::attr_ints(rm, "axes", {1});
  OnnxModelBuilder::attr_int(rm, "keepdims", 0);
  mb.output("t");
  mb.output("m");
  auto dir = temp_dir("reshape_transpose");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  m.set_input("x", x);
  m.run();
  std::vector<float> want_t(24), want_m(4, 0.f);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) {
      want_t[j * 6 + i] = x[i * 4 + j];
      want_m[j] += x[i * 4 + j] / 6.f;
    }
  expect_close(m.output(0), want_t);
  expect_close(m.output(1), want_m);
}

// Regression: an empty constant (Shape with start > end) used to hit an internal check in codegen.
TEST(EndToEnd, EmptyShapeOutput) {
  OnnxModelBuilder mb;
  mb.input("x", {2, 3});
  auto* s = mb.node("Shape", {"x"}, {"s"}, "shape");
  OnnxModelBuilder::attr_int(s, "start", 1);
  OnnxModelBuilder::attr_int(s, "end", 0);
  mb.node("Relu", {"x"}, {"y"}, "relu");
  mb.output("s", onnx::TensorProto::INT64);
  mb.output("y");
  auto dir = temp_dir("empty_shape");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  auto x = random_vector(6, 11);
  m.set_input("x", x);
  m.run();
  std::vector<int64_t> shape;
  m.output(0, &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{0}));
  std::vector<float> want(6);
  for (int i = 0; i < 6; ++i) want[i] = std::max(x[i], 0.f);
  expect_close(m.output(1), want);
}

// Regression: a zero-size input given as a DLTensor with a NULL data pointer was reported as
// "input 'x' was not set".
TEST(EndToEnd, EmptyInputTensor) {
  OnnxModelBuilder mb;
  mb.input("x", {0, 3});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  mb.output("y");
  auto dir = temp_dir("empty_input");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load((dir / "m.so").c_str(), &model), INGOT_OK) << ingot_last_error();
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK);
  int64_t shape[2] = {0, 3};
  DLTensor t{};
  t.data = nullptr;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape;
  EXPECT_EQ(ingot_session_set_input(session, 0, &t), INGOT_OK) << ingot_last_error();
  EXPECT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  DLTensor out;
  ASSERT_EQ(ingot_session_output(session, 0, &out), INGOT_OK);
  EXPECT_EQ(out.shape[0], 0);
  ingot_session_free(session);
  ingot_model_free(model);
}

}  // namespace
}  // namespace ingot::testing
