// float16 kernels through LLVM: storage as IEEE half, every operation rounded to half (scalar and
// vectorized loops; a multiply-add may be contracted), math intrinsics computed in float32, half
// <-> float32/int casts, and the dtype the artifact records for a float16 input.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "artifact_util.h"
#include "support/half.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

std::vector<uint16_t> halves(const std::vector<double>& v) {
  std::vector<uint16_t> h;
  for (double x : v) h.push_back(double_to_half_bits(x));
  return h;
}
double val(uint16_t h) {
  return half_bits_to_double(h);
}

TEST(Float16Kernels, MulAddRoundsEachOperationScalarAndVectorized) {
  const int64_t n = 37;
  std::vector<double> av, bv, cv;
  for (int64_t i = 0; i < n; ++i) {
    av.push_back((double(i) - 18) * 0.37);
    bv.push_back(1.0 / double(i + 1));
    cv.push_back(double(i) * 1e-3);
  }
  av[0] = 1, bv[0] = 1, cv[0] = std::ldexp(1.0, -11);  // 1 + 2^-11 ties to 1.0
  av[1] = 256, bv[1] = 256, cv[1] = 0;                 // 65536 overflows to infinity
  std::vector<uint16_t> a = halves(av), b = halves(bv), c = halves(cv);
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    Buffer ab = make_buffer("A", DataType::f16(), {n});
    Buffer bb = make_buffer("B", DataType::f16(), {n});
    Buffer cb = make_buffer("C", DataType::f16(), {n});
    Buffer yb = make_buffer("Y", DataType::f16(), {n});
    Var i("i");
    Stmt body =
        For::make(i, i64(0), i64(n), kind, BufferStore::make(yb, ab(i) * bb(i) + cb(i), {i}));
    LoadedArtifact art(single_kernel_module("fma16", {ab, bb, cb, yb}, body, 3));
    EXPECT_EQ(art->inputs[0].dtype.code, 2);
    EXPECT_EQ(art->inputs[0].dtype.bits, 16);
    std::vector<uint16_t> y(n + 4, 0xabcd);
    ASSERT_EQ(art.run({a.data(), b.data(), c.data()}, {y.data()}), 0);
    for (int64_t k = 0; k < n; ++k) {
      // Codegen allows contraction: a fused multiply-add rounds once.
      double want = round_to_half(round_to_half(val(a[k]) * val(b[k])) + val(c[k]));
      double fused = round_to_half(val(a[k]) * val(b[k]) + val(c[k]));
      EXPECT_TRUE(val(y[k]) == want || val(y[k]) == fused) << k << ": " << val(y[k]);
    }
    EXPECT_EQ(val(y[0]), 1.0);
    EXPECT_EQ(val(y[1]), INFINITY);
    EXPECT_EQ(y[n], 0xabcd);  // nothing written past the end
  }
}

TEST(Float16Kernels, ExpInFloat32AndCastsToFloat32AndInt32) {
  std::vector<double> xv = {-4.0, -0.5, 0.0, 0.1, 1.0, 3.3, 10.5, 11.5};
  int64_t n = int64_t(xv.size());
  std::vector<uint16_t> x = halves(xv);
  Buffer xb = make_buffer("X", DataType::f16(), {n});
  Buffer eb = make_buffer("E", DataType::f16(), {n});
  Buffer fb = make_buffer("F", DataType::f32(), {n});
  Buffer ib = make_buffer("I", DataType::i32(), {n});
  Buffer hb = make_buffer("H", DataType::f16(), {n});
  Var i("i");
  Stmt body = For::make(
      i, i64(0), i64(n), ForKind::kVectorized,
      SeqStmt::make(
          {BufferStore::make(eb, tir::exp(xb(i)), {i}),
           BufferStore::make(fb, cast(DataType::f32(), xb(i)), {i}),
           BufferStore::make(ib, cast(DataType::i32(), xb(i) * make_const(DataType::f16(), 100)),
                             {i}),
           BufferStore::make(hb, cast(DataType::f16(), cast(DataType::i32(), xb(i))), {i})}));
  LoadedArtifact art(single_kernel_module("exp16", {xb, eb, fb, ib, hb}, body, 1));
  std::vector<uint16_t> e(n), h(n);
  std::vector<float> f(n);
  std::vector<int32_t> iv(n);
  ASSERT_EQ(art.run({x.data()}, {e.data(), f.data(), iv.data(), h.data()}), 0);
  for (int64_t k = 0; k < n; ++k) {
    double xk = val(x[k]);
    double want = std::exp(xk);  // 11.5: 98715.8 overflows float16
    if (want > 65504)
      EXPECT_EQ(val(e[k]), INFINITY) << xk;
    else
      EXPECT_NEAR(val(e[k]), want, want * 1e-3) << xk;  // within one half ulp
    EXPECT_EQ(f[k], float(xk));
    EXPECT_EQ(iv[k], int32_t(std::trunc(round_to_half(xk * 100)))) << xk;
    EXPECT_EQ(val(h[k]), std::trunc(xk)) << xk;
  }
}

}  // namespace
}  // namespace ingot::codegen::test
