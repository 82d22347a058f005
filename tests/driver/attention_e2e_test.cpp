// End to end: self-attention as BERT exports it (Transposes of the heads folded into the
// MatMuls' packing by fold_transpose_matmul, run-time B, the column-/batch-parallel matmul
// order, Softmax in lane strips) and a transposed A against a constant B, compiled through
// `ingot compile` and compared with plain reference loops.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"

namespace ingot::testing {
namespace {

// ctx = Reshape(Transpose(Softmax(Q K^T / sqrt(D)) V, 0213), [1, S, H * D]) with
// Q, K, V the [1, S, H, D] inputs viewed per head by Transposes 0213 / 0231 / 0213.
void expect_attention(int S, int H, int D) {
  auto q = random_vector(size_t(S * H * D), 1), k = random_vector(size_t(S * H * D), 2),
       v = random_vector(size_t(S * H * D), 3);
  OnnxModelBuilder mb;
  for (const char* n : {"q", "k", "v"}) mb.input(n, {1, S, H, D});
  mb.initializer("scale", {}, {std::sqrt(float(D))});
  mb.initializer_i64("merge", {3}, {1, S, H * D});
  auto perm = [&](const char* in, const char* out, std::vector<int64_t> p) {
    OnnxModelBuilder::attr_ints(mb.node("Transpose", {in}, {out}, out), "perm", p);
  };
  perm("q", "qt", {0, 2, 1, 3});
  perm("k", "kt", {0, 2, 3, 1});
  perm("v", "vt", {0, 2, 1, 3});
  mb.node("MatMul", {"qt", "kt"}, {"s"}, "qk");
  mb.node("Div", {"s", "scale"}, {"ss"}, "div");
  OnnxModelBuilder::attr_int(mb.node("Softmax", {"ss"}, {"p"}, "softmax"), "axis", -1);
  mb.node("MatMul", {"p", "vt"}, {"c"}, "pv");
  perm("c", "ct", {0, 2, 1, 3});
  mb.node("Reshape", {"ct", "merge"}, {"y"}, "reshape");
  mb.output("y");
  auto dir = temp_dir("attention");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  m.set_input("q", q);
  m.set_input("k", k);
  m.set_input("v", v);
  m.run();
  auto at = [&](const std::vector<float>& t, int s, int h, int d) {
    return double(t[size_t((s * H + h) * D + d)]);
  };
  std::vector<float> want(size_t(S * H * D));
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < S; ++i) {
      std::vector<double> p(static_cast<size_t>(S), 0.0);
      double mx = -1e300, sum = 0;
      for (int j = 0; j < S; ++j) {
        double acc = 0;
        for (int d = 0; d < D; ++d) acc += at(q, i, h, d) * at(k, j, h, d);
        p[size_t(j)] = acc / std::sqrt(double(D));
        mx = std::max(mx, p[size_t(j)]);
      }
      for (double& x : p) sum += (x = std::exp(x - mx));
      for (int d = 0; d < D; ++d) {
        double acc = 0;
        for (int j = 0; j < S; ++j) acc += p[size_t(j)] / sum * at(v, j, h, d);
        want[size_t((i * H + h) * D + d)] = float(acc);
      }
    }
  std::vector<int64_t> shape;
  auto got = m.output(0, &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{1, S, H * D}));
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << "at " << i;
}

TEST(Attention, HeadsInParallelWithTails) {
  expect_attention(37, 5, 24);  // >= 4 heads: batch-parallel; rows, columns and K with tails
}

TEST(Attention, FewHeadsRowBlocks) {
  expect_attention(40, 2, 16);  // 2 heads: the row-block order
}

TEST(Attention, TransposedAAgainstConstantB) {
  const int M = 40, K = 6, N = 70;
  auto x = random_vector(size_t(K * M), 4), w = random_vector(size_t(K * N), 5);
  OnnxModelBuilder mb;
  mb.input("x", {K, M});
  mb.initializer("w", {K, N}, w);
  OnnxModelBuilder::attr_ints(mb.node("Transpose", {"x"}, {"xt"}, "t"), "perm", {1, 0});
  mb.node("MatMul", {"xt", "w"}, {"y"}, "mm");
  mb.output("y");
  auto dir = temp_dir("transposed_a");
  mb.save(dir / "m.onnx");
  CompiledModel m(dir / "m.onnx", dir / "m.so");
  m.set_input("x", x);
  m.run();
  auto got = m.output(0);
  ASSERT_EQ(got.size(), size_t(M * N));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double(x[size_t(k * M + i)]) * w[size_t(k * N + j)];
      ASSERT_NEAR(got[size_t(i * N + j)], acc, 1e-4) << "at (" << i << ", " << j << ")";
    }
}

}  // namespace
}  // namespace ingot::testing
