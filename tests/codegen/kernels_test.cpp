// Compiles small hand-built kernels (parallel+vectorized add, explicit vector loads, gathers,
// a matmul with a local accumulator, reductions) and checks them against reference loops.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <cmath>
#include <numeric>
#include <sstream>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "schedule/intrin/x86_fma.h"
#include "support/error.h"
#include "tir/printer.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

std::vector<float> iota_floats(size_t n, float scale, float offset) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) * scale + offset;
  return v;
}

// C[i] = A[i] + B[i] for i < n: parallel outer loop over 16-wide vectorized chunks with a tail.
IRModule vector_add_module(int64_t n) {
  Buffer a = make_buffer("A", DataType::f32(), {n});
  Buffer b = make_buffer("B", DataType::f32(), {n});
  Buffer c = make_buffer("C", DataType::f32(), {n});
  Var io("io"), ii("ii");
  Expr i = io * 16 + ii;
  Stmt store = BufferStore::make(c, a(i) + b(i), {i});
  Stmt inner = For::make(ii, i64(0), i64(16), ForKind::kVectorized, IfThenElse::make(i < n, store));
  Stmt body = For::make(io, i64(0), i64((n + 15) / 16), ForKind::kParallel, inner);
  return single_kernel_module("vadd", {a, b, c}, body, 2);
}

TEST(Kernels, ParallelVectorAddSerialAndThreaded) {
  const int64_t n = 1000;
  LoadedArtifact art(vector_add_module(n));
  auto a = iota_floats(n, 0.5f, 1.0f), b = iota_floats(n, -2.0f, 3.0f);
  for (bool threaded : {false, true}) {
    std::vector<float> c(n + 8, -1.0f);
    ServiceStats stats;
    ASSERT_EQ(art.run({a.data(), b.data()}, {c.data()}, nullptr, threaded, &stats), 0);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
    for (int64_t i = n; i < n + 8; ++i) EXPECT_EQ(c[i], -1.0f);  // nothing past the end
    EXPECT_EQ(stats.launches, 1);
    EXPECT_EQ(stats.tasks, 63);  // min(extent 63, 64)
  }
}

// A prefetch of the element 16 ahead (clamped to the buffer's end) in a copy loop: LLVM gets an
// llvm.prefetch, and the values are the loop's alone (a prefetch reads nothing).
TEST(Kernels, ALocalBufferPastFourMegabytesIsRefused) {
  // A local buffer is an alloca on the stack of the thread running the kernel: one left at a
  // tensor's size (a compaction that did not happen) is an internal error, not a stack overflow.
  auto kernel = [](int64_t n) {
    Buffer y = make_buffer("Y", DataType::f32(), {1});
    Buffer t = Buffer::make("T", DataType::f32(), std::vector<int64_t>{n}, StorageScope::kLocal);
    Stmt body = Allocate::make(t, SeqStmt::make({BufferStore::make(t, f32(2), {i64(n - 1)}),
                                                 BufferStore::make(y, t(i64(n - 1)), {i64(0)})}));
    return single_kernel_module("local_" + std::to_string(n), {y}, body, 0);
  };
  EXPECT_NO_THROW(emit_llvm_ir(kernel(1 << 18), Target::host()));  // 1 MB
  EXPECT_THROW(emit_llvm_ir(kernel(int64_t(5) << 18), Target::host()), ingot::InternalError);
}

TEST(Kernels, PrefetchIsAHintThatChangesNoValue) {
  const int64_t n = 100;
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {n});
  Var i("i");
  Stmt hint = Evaluate::make(call(Intrinsic::prefetch, {x(min(i + i64(16), i64(n - 1)))}));
  Stmt body = For::make(i, i64(0), i64(n), ForKind::kSerial,
                        SeqStmt::make({hint, BufferStore::make(y, x(i) + 1.0f, {i})}));
  IRModule mod = single_kernel_module("prefetched_copy", {x, y}, body, 1);
  EXPECT_NE(emit_llvm_ir(mod, Target::host()).find("@llvm.prefetch"), std::string::npos);
  LoadedArtifact art(mod);
  auto xs = iota_floats(size_t(n), 0.5f, -3.0f);
  std::vector<float> ys(size_t(n), 0.0f);
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}, nullptr, false), 0);
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(ys[size_t(k)], xs[size_t(k)] + 1.0f) << k;
}

TEST(Kernels, ParallelLoopWithMoreIterationsThanTasks) {
  const int64_t n = 1000;
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {n});
  Var i("i");
  Stmt body = For::make(i, i64(0), i64(n), ForKind::kParallel,
                        BufferStore::make(y, x(i) * 2.0f + 1.0f, {i}));
  LoadedArtifact art(single_kernel_module("par_many", {x, y}, body, 1));
  auto xs = iota_floats(n, 1.0f, 0.0f);
  std::vector<float> ys(n, 0.0f);
  ServiceStats stats;
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}, nullptr, true, &stats), 0);
  EXPECT_EQ(stats.tasks, 64);
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(ys[k], xs[k] * 2.0f + 1.0f) << k;
}

TEST(Kernels, OutlinedLoopsAreSeparateFunctionsInParallelBodies) {
  // Y[i, j, l] = X[i, j, l] * sigmoid(X[i, j, l]) + i: the j loop outlined (ForKind::kOutlined)
  // inside a parallel i loop; it reads the enclosing loop variable i and both buffers, and runs
  // as its own function, which LLVM does not inline.
  const int64_t n = 6, m = 5, w = 16;
  Buffer x = make_buffer("X", DataType::f32(), {n, m, w});
  Buffer y = make_buffer("Y", DataType::f32(), {n, m, w});
  Var i("i"), j("j"), l("l");
  Expr v = x(i, j, l);
  Stmt store = BufferStore::make(y, v * sigmoid(v) + cast(DataType::f32(), i), {i, j, l});
  Stmt body = For::make(i, i64(0), i64(n), ForKind::kParallel,
                        For::make(j, i64(0), i64(m), ForKind::kOutlined,
                                  For::make(l, i64(0), i64(w), ForKind::kVectorized, store)));
  IRModule mod = single_kernel_module("silu", {x, y}, body, 1);
  // After LLVM's optimizations the outlined function is still defined (not inlined) and called
  // (whatever calling convention and return type LLVM gave it).
  std::string ir = emit_llvm_ir(mod, Target::host());
  bool defined = false, called = false;
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("@silu_kernel_out1(") == std::string::npos) continue;
    defined = defined || line.rfind("define internal", 0) == 0;
    called = called || line.find("call ") != std::string::npos;
  }
  EXPECT_TRUE(defined && called) << ir;
  LoadedArtifact art(mod);
  auto xs = iota_floats(size_t(n * m * w), 0.05f, -12.0f);
  for (bool threaded : {false, true}) {
    std::vector<float> ys(xs.size(), 0.0f);
    ASSERT_EQ(art.run({xs.data()}, {ys.data()}, nullptr, threaded), 0);
    for (size_t k = 0; k < xs.size(); ++k) {
      double t = xs[k], want = t / (1.0 + std::exp(-t)) + double(k / size_t(m * w));
      ASSERT_NEAR(ys[k], want, 1e-5 * (1 + std::fabs(want))) << k;
    }
  }
}

TEST(Kernels, ExplicitVectorLoadStoreAndGather) {
  // Y[8*i .. 8*i+7] = X[16*i + 2*l] (a stride-2 gather) + Z[8*i + l] (contiguous), Ramp form.
  const int64_t rows = 5;
  Buffer x = make_buffer("X", DataType::f32(), {rows * 16});
  Buffer z = make_buffer("Z", DataType::f32(), {rows * 8});
  Buffer y = make_buffer("Y", DataType::f32(), {rows * 8});
  Var i("i");
  Expr gather = x(Ramp::make(i * 16, i64(2), 8));
  Expr contiguous = z(Ramp::make(i * 8, i64(1), 8));
  Expr scalar_bcast = Broadcast::make(z(i), 8);  // scalar load broadcast to all lanes
  Stmt body = For::make(
      i, i64(0), i64(rows), ForKind::kSerial,
      BufferStore::make(y, gather + contiguous + scalar_bcast, {Ramp::make(i * 8, i64(1), 8)}));
  LoadedArtifact art(single_kernel_module("ramps", {x, z, y}, body, 2));
  auto xs = iota_floats(rows * 16, 1.0f, 0.0f), zs = iota_floats(rows * 8, 0.25f, 100.0f);
  std::vector<float> ys(rows * 8, 0.0f);
  ASSERT_EQ(art.run({xs.data(), zs.data()}, {ys.data()}), 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t l = 0; l < 8; ++l)
      EXPECT_EQ(ys[r * 8 + l], xs[r * 16 + 2 * l] + zs[r * 8 + l] + zs[r]) << r << "," << l;
}

TEST(Kernels, ShuffleBroadcastsWithinGroups) {
  // Y[r, l] = X[r, (l / 4) * 4 + 1] for 16 lanes: each group of 4 gets its element 1, as the
  // narrow-group conv builds its inputs; and a reversal.
  Buffer x = make_buffer("X", DataType::f32(), {2 * 16});
  Buffer y = make_buffer("Y", DataType::f32(), {2 * 16});
  Buffer z = make_buffer("Z", DataType::f32(), {16});
  std::vector<int> group, reverse;
  for (int l = 0; l < 16; ++l) group.push_back(l / 4 * 4 + 1), reverse.push_back(15 - l);
  Var r("r");
  Stmt body = SeqStmt::make(
      {For::make(r, i64(0), i64(2), ForKind::kSerial,
                 BufferStore::make(y, Shuffle::make(x(Ramp::make(r * 16, i64(1), 16)), group),
                                   {Ramp::make(r * 16, i64(1), 16)})),
       BufferStore::make(z, Shuffle::make(x(Ramp::make(i64(0), i64(1), 16)), reverse),
                         {Ramp::make(i64(0), i64(1), 16)})});
  LoadedArtifact art(single_kernel_module("shuffle", {x, y, z}, body, 1));
  auto xs = iota_floats(32, 1.0f, 1.0f);
  std::vector<float> ys(32, 0.0f), zs(16, 0.0f);
  ASSERT_EQ(art.run({xs.data()}, {ys.data(), zs.data()}), 0);
  for (int row = 0; row < 2; ++row)
    for (int l = 0; l < 16; ++l)
      EXPECT_EQ(ys[size_t(row * 16 + l)], float(row * 16 + l / 4 * 4 + 1 + 1)) << row << "," << l;
  for (int l = 0; l < 16; ++l) EXPECT_EQ(zs[size_t(l)], float(16 - l)) << l;
}

TEST(Kernels, FmaTileWithAVectorAOperandIsADepthwiseTile) {
  // The FMA tile with A using j: C[i, j] += sum over a, b of X[a, i + b, j] * W[a, b, j], a 3x3
  // depthwise tile of 4 output columns x 16 channels (two 8-lane vectors), compiled from the
  // intrinsic's implementation and checked against the sum.
  schedule::FmaTileSpec s;
  s.lanes = 8, s.mr = 4, s.nr = 16, s.k = {3, 3};
  s.a.dims = {{0, 0, 1, 0}, {1, 0, 0, 1}, {0, 1, 0, 0}};  // X[a, i + b, j]
  s.b.dims = {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}};  // W[a, b, j]
  s.c.dims = {{1, 0, 0, 0}, {0, 1, 0, 0}};                // Y[i, j]
  std::string name = schedule::fma_tile_name(s);
  auto parsed = schedule::parse_fma_tile_spec(name);
  ASSERT_TRUE(parsed.has_value()) << name;
  EXPECT_EQ(parsed->a.dims, s.a.dims);
  schedule::FmaTileSpec bad = s;
  bad.a.dims = {{0, 1, 1, 0}, {1, 0, 0, 1}, {0, 0, 0, 0}};  // j outside A's last dimension
  EXPECT_THROW(schedule::make_fma_tile_intrin(bad), ingot::InternalError);
  EXPECT_FALSE(schedule::parse_fma_tile_spec(schedule::fma_tile_name(bad)).has_value());
  schedule::TensorIntrin in = schedule::make_fma_tile_intrin(s);
  const auto& p = in.impl.params;  // A[3, 6, 16], B[3, 3, 16], C[4, 16]
  ASSERT_EQ(p.size(), 3u);
  Var i("i");
  Stmt zero = For::make(i, i64(0), i64(4), ForKind::kSerial,
                        BufferStore::make(p[2], make_const(DataType::f32().with_lanes(16), 0),
                                          {i, Ramp::make(i64(0), i64(1), 16)}));
  LoadedArtifact art(single_kernel_module("dw_tile", p, SeqStmt::make({zero, in.impl.body}), 2));
  auto xs = iota_floats(3 * 6 * 16, 0.01f, -1.0f), ws = iota_floats(3 * 3 * 16, 0.03f, -0.5f);
  std::vector<float> ys(4 * 16, 0.0f);
  ASSERT_EQ(art.run({xs.data(), ws.data()}, {ys.data()}), 0);
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 16; ++j) {
      double want = 0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          want += double(xs[size_t((a * 6 + r + b) * 16 + j)]) * ws[size_t((a * 3 + b) * 16 + j)];
      EXPECT_NEAR(ys[size_t(r * 16 + j)], want, 1e-4) << r << "," << j;
    }
}

TEST(Kernels, FmaTileRunsSeveralReductionStepsPerIteration) {
  // A 3x16 matmul tile (two 8-lane vectors) over K steps: the reduction loop takes the largest
  // power of two up to kTileStepsPerIteration dividing K per iteration (16: 2 iterations of 8;
  // 12: 3 of 4; 7: 7 of 1), and the sum is the same as a reference's.
  for (auto [K, iterations] : std::vector<std::pair<int, int>>{{16, 2}, {12, 3}, {7, 7}}) {
    schedule::FmaTileSpec s = schedule::gemm_tile_spec(schedule::FmaTileShape{8, 3, 16, K});
    schedule::TensorIntrin in = schedule::make_fma_tile_intrin(s);
    const std::string text = to_string(in.impl.body);
    EXPECT_NE(text.find(fmt::format("for k in range(0, {}):", iterations)), std::string::npos)
        << K << "\n"
        << text;
    const auto& p = in.impl.params;  // A[3, K], B[1, K, 16], C[3, 16]
    ASSERT_EQ(p.size(), 3u);
    Var i("i");
    Stmt zero = For::make(i, i64(0), i64(3), ForKind::kSerial,
                          BufferStore::make(p[2], make_const(DataType::f32().with_lanes(16), 0),
                                            {i, Ramp::make(i64(0), i64(1), 16)}));
    LoadedArtifact art(single_kernel_module(fmt::format("mm_tile_k{}", K), p,
                                            SeqStmt::make({zero, in.impl.body}), 2));
    auto as = iota_floats(size_t(3 * K), 0.01f, -0.2f),
         bs = iota_floats(size_t(K * 16), 0.03f, -1.f);
    std::vector<float> cs(3 * 16, 0.0f);
    ASSERT_EQ(art.run({as.data(), bs.data()}, {cs.data()}), 0);
    for (int r = 0; r < 3; ++r)
      for (int j = 0; j < 16; ++j) {
        double want = 0;
        for (int k = 0; k < K; ++k) want += double(as[size_t(r * K + k)]) * bs[size_t(k * 16 + j)];
        EXPECT_NEAR(cs[size_t(r * 16 + j)], want, 1e-4) << K << ": " << r << "," << j;
      }
  }
}

TEST(Kernels, FmaTileWithLaneGroupsSumsEachGroupsInputs) {
  // The FMA tile with lane groups of 4: C[i, j] += sum over b, g of X[i + b, floor(j / 4) * 4 + g]
  // * W[b, g, j], a 1x3 grouped-conv tile of 3 output columns x 16 channels (two 8-lane
  // vectors, 4 groups of 4), compiled from the intrinsic's implementation and checked against
  // the sum.
  schedule::FmaTileSpec s;
  s.lanes = 8, s.mr = 3, s.nr = 16, s.k = {3, 4}, s.a_group = 4;
  s.a.dims = {{1, 0, 1, 0}, {0, 0, 0, 1}};                // X[i + b, g (+ the group's first)]
  s.b.dims = {{0, 0, 1, 0}, {0, 0, 0, 1}, {0, 1, 0, 0}};  // W[b, g, j]
  s.c.dims = {{1, 0, 0, 0}, {0, 1, 0, 0}};                // Y[i, j]
  std::string name = schedule::fma_tile_name(s);
  EXPECT_NE(name.find("_g4"), std::string::npos) << name;
  auto parsed = schedule::parse_fma_tile_spec(name);
  ASSERT_TRUE(parsed.has_value()) << name;
  EXPECT_EQ(parsed->a_group, 4);
  for (auto breaks : {+[](schedule::FmaTileSpec& b) { b.a_group = 3; },  // not a divisor of 8
                      +[](schedule::FmaTileSpec& b) {
                        b.k = {3, 2};
                      },  // group var extent
                      +[](schedule::FmaTileSpec& b) {
                        b.a.dims.back() = {0, 1, 0, 1};
                      }}) {
    schedule::FmaTileSpec bad = s;
    breaks(bad);
    EXPECT_THROW(schedule::make_fma_tile_intrin(bad), ingot::InternalError);
    EXPECT_FALSE(schedule::parse_fma_tile_spec(schedule::fma_tile_name(bad)).has_value());
  }
  schedule::TensorIntrin in = schedule::make_fma_tile_intrin(s);
  const auto& p = in.impl.params;  // A[5, 16], B[3, 4, 16], C[3, 16]
  ASSERT_EQ(p.size(), 3u);
  ASSERT_EQ(p[0]->shape.size(), 2u);
  Var i("i");
  Stmt zero = For::make(i, i64(0), i64(3), ForKind::kSerial,
                        BufferStore::make(p[2], make_const(DataType::f32().with_lanes(16), 0),
                                          {i, Ramp::make(i64(0), i64(1), 16)}));
  LoadedArtifact art(single_kernel_module("group_tile", p, SeqStmt::make({zero, in.impl.body}), 2));
  auto xs = iota_floats(5 * 16, 0.01f, -1.0f), ws = iota_floats(3 * 4 * 16, 0.03f, -0.5f);
  std::vector<float> ys(3 * 16, 0.0f);
  ASSERT_EQ(art.run({xs.data(), ws.data()}, {ys.data()}), 0);
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 16; ++j) {
      double want = 0;
      for (int b = 0; b < 3; ++b)
        for (int g = 0; g < 4; ++g)
          want +=
              double(xs[size_t((r + b) * 16 + j / 4 * 4 + g)]) * ws[size_t((b * 4 + g) * 16 + j)];
      EXPECT_NEAR(ys[size_t(r * 16 + j)], want, 1e-4) << r << "," << j;
    }
}

TEST(Kernels, ScatterStore) {
  // Y[2*l + 1] = X[l] for l in 0..7 (a strided vector store), Y[2*l] untouched.
  Buffer x = make_buffer("X", DataType::f32(), {8});
  Buffer y = make_buffer("Y", DataType::f32(), {16});
  Stmt body =
      BufferStore::make(y, x(Ramp::make(i64(0), i64(1), 8)), {Ramp::make(i64(1), i64(2), 8)});
  LoadedArtifact art(single_kernel_module("scatter", {x, y}, body, 1));
  auto xs = iota_floats(8, 1.0f, 1.0f);
  std::vector<float> ys(16, -5.0f);
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}), 0);
  for (int l = 0; l < 8; ++l) {
    EXPECT_EQ(ys[2 * l + 1], xs[l]);
    EXPECT_EQ(ys[2 * l], -5.0f);
  }
}

TEST(Kernels, MatmulWithLocalAccumulator) {
  const int64_t M = 17, N = 19, K = 23;
  Buffer a = make_buffer("A", DataType::f32(), {M, K});
  Buffer b = make_buffer("B", DataType::f32(), {K, N});
  Buffer c = make_buffer("C", DataType::f32(), {M, N});
  Buffer acc = make_buffer("acc", DataType::f32(), {1}, StorageScope::kLocal);
  Var i("i"), j("j"), k("k");
  Stmt reduce = For::make(k, i64(0), i64(K), ForKind::kSerial,
                          BufferStore::make(acc, acc(i64(0)) + a(i, k) * b(k, j), {i64(0)}));
  Stmt cell = Allocate::make(acc, SeqStmt::make({BufferStore::make(acc, f32(0), {i64(0)}), reduce,
                                                 BufferStore::make(c, acc(i64(0)), {i, j})}));
  Stmt body = For::make(i, i64(0), i64(M), ForKind::kParallel,
                        For::make(j, i64(0), i64(N), ForKind::kSerial, cell));
  LoadedArtifact art(single_kernel_module("matmul", {a, b, c}, body, 2));
  auto as = iota_floats(M * K, 0.01f, -1.0f), bs = iota_floats(K * N, -0.02f, 2.0f);
  std::vector<float> cs(M * N, 0.0f);
  ASSERT_EQ(art.run({as.data(), bs.data()}, {cs.data()}, nullptr, true), 0);
  for (int64_t r = 0; r < M; ++r)
    for (int64_t q = 0; q < N; ++q) {
      double ref = 0;
      for (int64_t t = 0; t < K; ++t) ref += double(as[r * K + t]) * bs[t * N + q];
      EXPECT_NEAR(cs[r * N + q], ref, 1e-4 * (1 + std::fabs(ref))) << r << "," << q;
    }
}

TEST(Kernels, RowReductionsFloatAndInt64WithStrides) {
  // Sum over rows of a [R, C] matrix viewed through explicit strides {C, 1}, and an int64 max.
  const int64_t R = 7, C = 33;
  Buffer x = Buffer::make("X", DataType::f32(), std::vector<Expr>{i64(R), i64(C)},
                          StorageScope::kGlobal, std::vector<Expr>{i64(C), i64(1)});
  Buffer q = make_buffer("Q", DataType::i64(), {R, C});
  Buffer s = make_buffer("S", DataType::f32(), {R});
  Buffer m = make_buffer("M", DataType::i64(), {R});
  Var i("i"), j("j");
  Stmt body = For::make(
      i, i64(0), i64(R), ForKind::kSerial,
      SeqStmt::make({BufferStore::make(s, f32(0), {i}),
                     BufferStore::make(m, min_value(DataType::i64()), {i}),
                     For::make(j, i64(0), i64(C), ForKind::kSerial,
                               SeqStmt::make({BufferStore::make(s, s(i) + x(i, j), {i}),
                                              BufferStore::make(m, max(m(i), q(i, j)), {i})}))}));
  LoadedArtifact art(single_kernel_module("rowsum", {x, q, s, m}, body, 2));
  auto xs = iota_floats(R * C, 0.5f, -3.0f);
  std::vector<int64_t> qs(R * C);
  for (int64_t t = 0; t < R * C; ++t) qs[t] = (t * 7919) % 1000 - 500 + (int64_t(1) << 40);
  std::vector<float> ss(R);
  std::vector<int64_t> ms(R);
  ASSERT_EQ(art.run({xs.data(), qs.data()}, {ss.data(), ms.data()}), 0);
  for (int64_t r = 0; r < R; ++r) {
    float ref = 0;
    int64_t mref = INT64_MIN;
    for (int64_t t = 0; t < C; ++t) {
      ref += xs[r * C + t];
      mref = std::max(mref, qs[r * C + t]);
    }
    EXPECT_NEAR(ss[r], ref, 1e-3);
    EXPECT_EQ(ms[r], mref);
  }
}

}  // namespace
}  // namespace ingot::codegen::test

namespace ingot::codegen::test {
namespace {

// Regression: LLVM's "loop not vectorized" warning (a vectorize hint on a loop with a
// loop-carried dependence) was printed to stderr by `ingot compile`. Warnings and remarks are
// dropped; the kernel still computes the right values.
TEST(Kernels, LlvmWarningsAreNotPrinted) {
  using namespace tir;
  Buffer a = make_buffer("a", DataType::f32(), {4096});
  Var i("i");
  Stmt body = For::make(i, i64(1), i64(4095), ForKind::kVectorized,
                        BufferStore::make(a, a(Expr(i) - 1) + f32(1), {i}));
  ::testing::internal::CaptureStderr();
  LoadedArtifact art(single_kernel_module("prefix", {a}, body, 0));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  std::vector<float> v(4096, 0.0f);
  ASSERT_EQ(art.run({}, {v.data()}), 0);
  EXPECT_EQ(v[4095], 4095.0f);
}

}  // namespace
}  // namespace ingot::codegen::test
