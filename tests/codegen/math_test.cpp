// Math intrinsics (incl. the inline exp/tanh/erf/sigmoid) against <cmath>, and integer
// semantics: floor division/modulo with negatives, casts, selects, uint8/int32/bool buffers.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <tuple>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

// Y[i] = f(X[i]) over n elements, in a vectorized loop (so the vector forms get exercised).
template <typename T>
std::vector<T> run_unary(const std::string& name, DataType dt, const std::vector<T>& xs,
                         const std::function<Expr(Expr)>& f,
                         const Target& target = Target::host()) {
  int64_t n = int64_t(xs.size());
  Buffer x = make_buffer("X", dt, {n});
  Buffer y = make_buffer("Y", dt, {n});
  Var i("i");
  Stmt body =
      For::make(i, i64(0), i64(n), ForKind::kVectorized, BufferStore::make(y, f(x(i)), {i}));
  LoadedArtifact art(single_kernel_module(name, {x, y}, body, 1), target);
  std::vector<T> ys(n);
  EXPECT_EQ(art.run({const_cast<T*>(xs.data())}, {ys.data()}), 0);
  return ys;
}

std::vector<float> sample(float lo, float hi, int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = lo + (hi - lo) * float(i) / float(n - 1);
  return v;
}

void expect_rel(const std::vector<float>& got, const std::vector<float>& xs, double (*ref)(double),
                double rel, double abs_tol, const char* what) {
  for (size_t i = 0; i < xs.size(); ++i) {
    double r = ref(xs[i]);
    EXPECT_NEAR(got[i], r, rel * std::fabs(r) + abs_tol) << what << "(" << xs[i] << ")";
  }
}

double sigmoid_ref(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double exp_ref(double x) {
  return std::exp(x);
}
double tanh_ref(double x) {
  return std::tanh(x);
}
double erf_ref(double x) {
  return std::erf(x);
}

// On the host's widest vectors and on AVX2 code (whose reciprocal estimate, rcpps, has 12 bits
// before the Newton step; AVX-512's vrcp14ps has 14), whatever the machine running the test.
void expect_inline_math(const Target& t) {
  SCOPED_TRACE(t.str());
  auto run = [&](const std::string& name, const std::vector<float>& xs, Expr (*f)(Expr)) {
    return run_unary<float>(
        name, DataType::f32(), xs, [f](Expr x) { return f(x); }, t);
  };
  auto xs = sample(-20.0f, 20.0f, 1001);
  xs.push_back(1e-5f);
  xs.push_back(-3e-4f);
  expect_rel(run("exp", xs, tir::exp), xs, exp_ref, 2e-6, 0, "exp");
  expect_rel(run("tanh", xs, tir::tanh), xs, tanh_ref, 2e-6, 0, "tanh");
  expect_rel(run("erf", xs, tir::erf), xs, erf_ref, 2e-6, 0, "erf");
  expect_rel(run("sigmoid", xs, tir::sigmoid), xs, sigmoid_ref, 2e-6, 0, "sigmoid");
  auto big = std::vector<float>{-100.0f, 100.0f, -87.0f, 88.0f};
  auto e = run("expbig", big, tir::exp);
  // exp(-100) is 3.7e-44: LLVM's inline form flushes it to 0, libm's expf (c) keeps the
  // subnormal.
  EXPECT_GE(e[0], 0.0f);
  EXPECT_LE(e[0], 4e-44f);
  EXPECT_TRUE(std::isinf(e[1]));
  EXPECT_NEAR(e[2], std::exp(-87.0), 2e-6 * std::exp(-87.0));
  EXPECT_NEAR(e[3], std::exp(88.0), 2e-6 * std::exp(88.0));
  auto s = run("sigbig", big, tir::sigmoid);
  // The divisions are reciprocal estimates with one Newton step (math.cpp): within 2 ulp, and
  // never outside the functions' ranges.
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_LE(s[1], 1.0f);
  EXPECT_GE(s[1], 1.0f - 2.5e-7f);
  auto wide = sample(-200.0f, 200.0f, 4001);
  for (auto [name, f, lo] :
       {std::tuple{"sigrange", &tir::sigmoid, 0.0f}, std::tuple{"tanhrange", &tir::tanh, -1.0f},
        std::tuple{"erfrange", &tir::erf, -1.0f}}) {
    auto y = run(name, wide, f);
    for (size_t i = 0; i < wide.size(); ++i) {
      EXPECT_GE(y[i], lo) << name << "(" << wide[i] << ")";
      EXPECT_LE(y[i], 1.0f) << name << "(" << wide[i] << ")";
    }
  }
  auto nan = run("nan", {NAN}, tir::tanh);
  EXPECT_TRUE(std::isnan(nan[0]));
}

TEST(Math, InlineExpTanhErfSigmoidFloat32) {
  expect_inline_math(Target::host());
  expect_inline_math(Target::parse("llvm -mcpu=haswell"));
  expect_inline_math(Target::parse("c"));  // <math.h>'s expf, tanhf, erff
}

// The same semantics from every CPU backend: LLVM, and C built by the host C compiler.
class EveryCpuBackend : public ::testing::TestWithParam<std::string> {
 protected:
  Target target() const { return Target::parse(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Backends, EveryCpuBackend, ::testing::Values("llvm", "c"));

TEST_P(EveryCpuBackend, LibmIntrinsicsFloat32) {
  auto pos = sample(0.01f, 50.0f, 257);
  auto any = sample(-7.5f, 7.5f, 257);
  auto run = [&](const char* name, const std::vector<float>& xs, std::function<Expr(Expr)> f) {
    return run_unary<float>(name, DataType::f32(), xs, f, target());
  };
  auto cmp = [](const std::vector<float>& got, const std::vector<float>& xs,
                const std::function<double(double)>& ref, const char* what) {
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_NEAR(got[i], ref(xs[i]), 1e-6 * (1 + std::fabs(ref(xs[i])))) << what << xs[i];
  };
  cmp(
      run("log", pos, tir::log), pos, [](double x) { return std::log(x); }, "log");
  cmp(
      run("sqrt", pos, tir::sqrt), pos, [](double x) { return std::sqrt(x); }, "sqrt");
  cmp(
      run("fabs", any, tir::fabs), any, [](double x) { return std::fabs(x); }, "fabs");
  cmp(
      run("floor", any, [](Expr x) { return call(Intrinsic::floor, {x}); }), any,
      [](double x) { return std::floor(float(x)); }, "floor");
  cmp(
      run("ceil", any, [](Expr x) { return call(Intrinsic::ceil, {x}); }), any,
      [](double x) { return std::ceil(float(x)); }, "ceil");
  cmp(
      run("sin", any, [](Expr x) { return call(Intrinsic::sin, {x}); }), any,
      [](double x) { return std::sin(x); }, "sin");
  cmp(
      run("cos", any, [](Expr x) { return call(Intrinsic::cos, {x}); }), any,
      [](double x) { return std::cos(x); }, "cos");
  cmp(
      run("pow", pos, [](Expr x) { return tir::pow(x, f32(1.5)); }), pos,
      [](double x) { return std::pow(x, 1.5); }, "pow");
  cmp(
      run("fmod", any,
          [](Expr x) {
            return call(Intrinsic::fmod, {x, f32(2.5)});
          }),
      any, [](double x) { return std::fmod(float(x), 2.5f); }, "fmod");
  // round: ties to even like ONNX Round.
  std::vector<float> ties = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 3.5f, 2.4f, -2.6f};
  auto r = run("round", ties, [](Expr x) { return call(Intrinsic::round, {x}); });
  std::vector<float> expect = {-2, -2, -0, 0, 2, 2, 4, 2, -3};
  for (size_t i = 0; i < ties.size(); ++i) EXPECT_EQ(r[i], expect[i]) << ties[i];
}

TEST_P(EveryCpuBackend, Float64Intrinsics) {
  std::vector<double> xs;
  for (int i = 0; i < 64; ++i) xs.push_back(-4.0 + i * 0.125);
  auto t = run_unary<double>("tanh64", DataType::f64(), xs, tir::tanh, target());
  auto e = run_unary<double>("erf64", DataType::f64(), xs, tir::erf, target());
  auto s = run_unary<double>("sig64", DataType::f64(), xs, tir::sigmoid, target());
  auto x = run_unary<double>("exp64", DataType::f64(), xs, tir::exp, target());
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(t[i], std::tanh(xs[i]), 1e-14);
    EXPECT_NEAR(e[i], std::erf(xs[i]), 1e-14);
    EXPECT_NEAR(s[i], 1 / (1 + std::exp(-xs[i])), 1e-14);
    EXPECT_NEAR(x[i], std::exp(xs[i]), 1e-13 * std::exp(xs[i]));
  }
}

int64_t floordiv_ref(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floormod_ref(int64_t a, int64_t b) {
  return a - floordiv_ref(a, b) * b;
}

TEST_P(EveryCpuBackend, FloorDivModWithNegatives) {
  std::vector<int32_t> as, bs;
  for (int a = -9; a <= 9; ++a)
    for (int b : {-4, -3, -1, 1, 2, 3, 5}) {
      as.push_back(a);
      bs.push_back(b);
    }
  int64_t n = int64_t(as.size());
  Buffer a = make_buffer("A", DataType::i32(), {n});
  Buffer b = make_buffer("B", DataType::i32(), {n});
  Buffer q = make_buffer("Q", DataType::i32(), {n});
  Buffer r = make_buffer("R", DataType::i32(), {n});
  Buffer t = make_buffer("T", DataType::i32(), {n});
  Var i("i");
  Stmt body = For::make(i, i64(0), i64(n), ForKind::kVectorized,
                        SeqStmt::make({BufferStore::make(q, floordiv(a(i), b(i)), {i}),
                                       BufferStore::make(r, floormod(a(i), b(i)), {i}),
                                       BufferStore::make(t, a(i) / b(i), {i})}));
  LoadedArtifact art(single_kernel_module("floordiv", {a, b, q, r, t}, body, 2), target());
  std::vector<int32_t> qs(n), rs(n), ts(n);
  ASSERT_EQ(art.run({as.data(), bs.data()}, {qs.data(), rs.data(), ts.data()}), 0);
  for (int64_t k = 0; k < n; ++k) {
    EXPECT_EQ(qs[k], floordiv_ref(as[k], bs[k])) << as[k] << " // " << bs[k];
    EXPECT_EQ(rs[k], floormod_ref(as[k], bs[k])) << as[k] << " % " << bs[k];
    EXPECT_EQ(ts[k], as[k] / bs[k]) << as[k] << " / " << bs[k];  // Div truncates
  }
}

TEST_P(EveryCpuBackend, ConstantDivisorsAndIndexMath) {
  // Y[i] = X[floordiv(i - 8, 4) + 2] * floormod(i - 8, 4): index math with constant divisors.
  const int64_t n = 16;
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {n});
  Var i("i");
  Expr j = i - 8;
  Stmt body = For::make(
      i, i64(0), i64(n), ForKind::kSerial,
      BufferStore::make(y, x(floordiv(j, i64(4)) + 2) * cast(DataType::f32(), floormod(j, i64(4))),
                        {i}));
  LoadedArtifact art(single_kernel_module("idx", {x, y}, body, 1), target());
  std::vector<float> xs(n), ys(n);
  for (int64_t k = 0; k < n; ++k) xs[k] = float(10 * k);
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}), 0);
  for (int64_t k = 0; k < n; ++k)
    EXPECT_EQ(ys[k], xs[floordiv_ref(k - 8, 4) + 2] * float(floormod_ref(k - 8, 4))) << k;
}

TEST(Integers, CastsSelectAndSmallTypes) {
  // From float X: U8 = uint8(clamp(X, 0, 255)), I = int32(X) (truncates), B = X > 0,
  // F = float(B) + float(U8) + float(I), S = select(B, I * 2, -I) as int64, H = f64(X) as f16 ->
  // f32.
  std::vector<float> xs = {-3.7f, -1.0f, -0.2f, 0.0f, 0.4f, 1.5f, 2.99f, 200.6f, 300.0f};
  int64_t n = int64_t(xs.size());
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer u8 = make_buffer("U8", DataType::u8(), {n});
  Buffer i32 = make_buffer("I", DataType::i32(), {n});
  Buffer bl = make_buffer("B", DataType::boolean(), {n});
  Buffer f = make_buffer("F", DataType::f32(), {n});
  Buffer s = make_buffer("S", DataType::i64(), {n});
  Buffer h = make_buffer("H", DataType::f32(), {n});
  Var i("i");
  Expr clamped = min(max(x(i), f32(0)), f32(255));
  Stmt body = For::make(
      i, i64(0), i64(n), ForKind::kSerial,
      SeqStmt::make(
          {BufferStore::make(u8, cast(DataType::u8(), clamped), {i}),
           BufferStore::make(i32, cast(DataType::i32(), x(i)), {i}),
           BufferStore::make(bl, x(i) > 0.0f, {i}),
           BufferStore::make(f,
                             cast(DataType::f32(), bl(i)) + cast(DataType::f32(), u8(i)) +
                                 cast(DataType::f32(), i32(i)),
                             {i}),
           BufferStore::make(s, cast(DataType::i64(), select(bl(i), i32(i) * 2, -i32(i))), {i}),
           BufferStore::make(
               h, cast(DataType::f32(), cast(DataType::f16(), cast(DataType::f64(), x(i)))),
               {i})}));
  LoadedArtifact art(single_kernel_module("casts", {x, u8, i32, bl, f, s, h}, body, 1));
  std::vector<uint8_t> us(n), bs(n, 7);
  std::vector<int32_t> is(n);
  std::vector<float> fs(n), hs(n);
  std::vector<int64_t> ss(n);
  ASSERT_EQ(
      art.run({xs.data()}, {us.data(), is.data(), bs.data(), fs.data(), ss.data(), hs.data()}), 0);
  for (int64_t k = 0; k < n; ++k) {
    float c = std::min(std::max(xs[k], 0.0f), 255.0f);
    EXPECT_EQ(us[k], uint8_t(c)) << xs[k];
    EXPECT_EQ(is[k], int32_t(xs[k])) << xs[k];
    EXPECT_EQ(bs[k], xs[k] > 0 ? 1 : 0) << xs[k];  // bool stored as one byte 0/1
    EXPECT_EQ(fs[k], float(xs[k] > 0) + float(uint8_t(c)) + float(int32_t(xs[k])));
    EXPECT_EQ(ss[k], xs[k] > 0 ? int64_t(is[k]) * 2 : -int64_t(is[k]));
    EXPECT_NEAR(hs[k], xs[k], std::fabs(xs[k]) * 1e-3) << xs[k];  // half precision
  }
}

TEST_P(EveryCpuBackend, Uint8ArithmeticWraps) {
  // Unsigned compare/divide: Y = select(A > B, A - B, B - A) / 3 with wrap-free uint8 math.
  std::vector<uint8_t> as = {0, 10, 200, 255, 128, 3}, bs = {255, 3, 100, 1, 128, 250};
  int64_t n = int64_t(as.size());
  Buffer a = make_buffer("A", DataType::u8(), {n});
  Buffer b = make_buffer("B", DataType::u8(), {n});
  Buffer y = make_buffer("Y", DataType::u8(), {n});
  Var i("i");
  Expr d = select(a(i) > b(i), a(i) - b(i), b(i) - a(i));
  Stmt body = For::make(i, i64(0), i64(n), ForKind::kSerial,
                        BufferStore::make(y, floordiv(d, make_const(DataType::u8(), 3)), {i}));
  LoadedArtifact art(single_kernel_module("u8", {a, b, y}, body, 2), target());
  std::vector<uint8_t> ys(n);
  ASSERT_EQ(art.run({as.data(), bs.data()}, {ys.data()}), 0);
  for (int64_t k = 0; k < n; ++k) {
    int d_ref = as[k] > bs[k] ? as[k] - bs[k] : bs[k] - as[k];
    EXPECT_EQ(ys[k], d_ref / 3) << k;
  }
}

}  // namespace
}  // namespace ingot::codegen::test

namespace ingot::codegen::test {
namespace {

TEST(Math, InlineFunctionsVectorize) {
  // The float32 exp/tanh/erf/sigmoid are plain IR: the vectorized loop has no libm calls left.
  const int64_t n = 256;
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {n});
  Var i("i");
  Expr v = x(i);
  Stmt body = For::make(
      i, i64(0), i64(n), ForKind::kVectorized,
      BufferStore::make(y, tir::exp(v) + tir::tanh(v) + tir::erf(v) + tir::sigmoid(v), {i}));
  IRModule m = single_kernel_module("vecmath", {x, y}, body, 1);
  std::string ir = emit_llvm_ir(m, Target::parse("llvm -mcpu=skylake-avx512 -mattr=+avx512f"));
  EXPECT_NE(ir.find("<16 x float>"), std::string::npos);
  EXPECT_EQ(ir.find("@expf"), std::string::npos);
  EXPECT_EQ(ir.find("@tanhf"), std::string::npos);
  EXPECT_EQ(ir.find("@erff"), std::string::npos);
}

}  // namespace
}  // namespace ingot::codegen::test
