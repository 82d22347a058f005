// Block-form kernels through codegen: lower_blocks in the codegen entry, Allocate sized from
// strides, and the default matmul schedule (tiled, tensorized with the FMA micro-kernel,
// parallel) compiled, loaded and run against a plain reference loop.
#include <random>
#include <set>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "common/packed_matmul.h"
#include "schedule/rules/matmul.h"
#include "schedule/schedule.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::MatmulConfig;
using schedule::PackedMatmul;

IRModule module_of(const PackedMatmul& m, const PrimFunc& f) {
  return single_kernel_module("gemm", {m.A, m.Bp, m.C}, f.body, 2);
}

// Builds f (a kernel over m's buffers), runs it on random A and B, compares with a reference.
void expect_gemm(const PackedMatmul& m, const PrimFunc& f, bool threaded,
                 const Target& target = Target::host()) {
  int64_t batch = std::max<int64_t>(m.batch, 1);
  std::vector<float> a = random_floats(batch * m.M * m.K, 1), b = random_floats(m.K * m.N, 2);
  std::vector<float> bp = schedule::pack_b_panels(b.data(), m.K, m.N, m.nr);
  std::vector<float> c(size_t(batch * m.M * m.N), -7.0f);
  LoadedArtifact art(module_of(m, f), target);
  ASSERT_EQ(art.run({a.data(), bp.data()}, {c.data()}, nullptr, threaded), 0);
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t i = 0; i < m.M; ++i)
      for (int64_t j = 0; j < m.N; ++j) {
        double want = 0;
        for (int64_t k = 0; k < m.K; ++k)
          want += double(a[size_t((t * m.M + i) * m.K + k)]) * double(b[size_t(k * m.N + j)]);
        ASSERT_NEAR(c[size_t((t * m.M + i) * m.N + j)], want, 1e-3)
            << "batch " << t << " at (" << i << ", " << j << ")";
      }
}

TEST(BlockCodegen, UnscheduledBlockFormRuns) {
  PackedMatmul m = schedule::make_packed_matmul(5, 40, 7, 32);  // masked last panel
  expect_gemm(m, m.func, false);
}

TEST(BlockCodegen, PackBlockMatchesHostPacking) {
  int64_t K = 5, N = 37;
  int nr = 16;
  PrimFunc f = schedule::make_pack_b(K, N, nr);
  std::vector<float> b = random_floats(K * N, 3);
  std::vector<float> want = schedule::pack_b_panels(b.data(), K, N, nr);
  std::vector<float> got(want.size(), -1.0f);
  LoadedArtifact art(single_kernel_module("pack", f.params, f.body, 1));
  ASSERT_EQ(art.run({b.data()}, {got.data()}), 0);
  EXPECT_EQ(got, want);
}

TEST(BlockCodegen, StridedAllocateIsSizedFromStrides) {
  // A local [4, 33] buffer with row stride 40 spans 3 * 40 + 33 = 153 floats, not 132.
  Buffer out = make_buffer("out", DataType::f32(), {4, 33});
  Buffer loc = Buffer::make("loc", DataType::f32(), {i64(4), i64(33)}, StorageScope::kLocal,
                            {i64(40), i64(1)});
  Var i("i"), j("j"), i2("i2"), j2("j2");
  Stmt fill = For::make(
      i, i64(0), i64(4), ForKind::kSerial,
      For::make(j, i64(0), i64(33), ForKind::kSerial,
                BufferStore::make(loc, cast(DataType::f32(), Expr(i) * 100 + j), {i, j})));
  Stmt copy = For::make(i2, i64(0), i64(4), ForKind::kSerial,
                        For::make(j2, i64(0), i64(33), ForKind::kSerial,
                                  BufferStore::make(out, loc(i2, j2), {i2, j2})));
  IRModule mod =
      single_kernel_module("strided", {out}, Allocate::make(loc, SeqStmt::make({fill, copy})), 0);
  Target t = Target::host();
  t.opt_level = 0;  // keep the alloca as emitted
  std::string ir = emit_llvm_ir(mod, t);
  EXPECT_NE(ir.find("alloca float, i64 153"), std::string::npos) << ir;
  std::vector<float> got(4 * 33);
  LoadedArtifact art(mod);
  ASSERT_EQ(art.run({}, {got.data()}), 0);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 33; ++c) ASSERT_EQ(got[size_t(r * 33 + c)], float(r * 100 + c));
}

// The default rule at small block sizes, so every loop level has several iterations.
MatmulConfig small_config(int vector_bits) {
  MatmulConfig cfg;
  cfg.vector_bits = vector_bits;
  cfg.mc = 16, cfg.nc = 64, cfg.kc = 64;
  return cfg;
}

// seed > 0: every tunable choice drawn at random from that seed (a tuner's candidate).
PrimFunc scheduled(const PackedMatmul& m, const MatmulConfig& cfg, uint64_t seed = 0) {
  schedule::Schedule s(m.func, seed);
  if (seed > 0) s.set_sampling_policy({.ignore_given = true});
  schedule::schedule_packed_matmul(s, "C", cfg);
  return s.func();
}

TEST(MatmulRule, DivisibleShapesMatchReference) {
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  int nr = schedule::matmul_panel_width(cfg);
  PackedMatmul m = schedule::make_packed_matmul(64, 4 * nr, 192, nr);
  expect_gemm(m, scheduled(m, cfg), true);
}

TEST(MatmulRule, NonDivisibleShapesMatchReference) {
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  int nr = schedule::matmul_panel_width(cfg);
  PackedMatmul m = schedule::make_packed_matmul(37, 3 * nr + 5, 150, nr);  // M, N, K tails
  expect_gemm(m, scheduled(m, cfg), true);
}

TEST(MatmulRule, MatrixVectorWithColumnTailMatchesReference) {
  // M = 1: the column blocks run in parallel and the last, partial panel runs the micro-kernel
  // on a scratch tile (B is packed in whole panels); 8 panels so several column blocks exist.
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  int nr = schedule::matmul_panel_width(cfg);
  PackedMatmul m = schedule::make_packed_matmul(1, 7 * nr + 9, 150, nr);
  PrimFunc f = scheduled(m, cfg);
  std::string text = to_string(f);
  EXPECT_NE(text.find("partial_C"), std::string::npos) << text;
  EXPECT_NE(text.find("parallel"), std::string::npos) << text;
  expect_gemm(m, f, true);
}

TEST(MatmulRule, BatchedMatchesReference) {
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  int nr = schedule::matmul_panel_width(cfg);
  PackedMatmul m = schedule::make_packed_matmul(19, 2 * nr, 70, nr, /*batch=*/3);
  expect_gemm(m, scheduled(m, cfg), true);
}

// Packed A (the A_pack block computed at each row block and K slice into a workspace scratch)
// with a bias row as the init: A = arg input 0, Ap = workspace, Bp and bias inputs, C output.
void expect_packed_a_gemm(int64_t M, int64_t N, int64_t K, bool threaded, uint64_t seed = 0) {
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  int nr = schedule::matmul_panel_width(cfg), mr = schedule::matmul_row_tile(cfg);
  PackedMatmul m = schedule::make_packed_matmul(M, N, K, nr, 0, /*with_bias=*/true, mr);
  ASSERT_EQ(m.func.params.size(), 5u);
  IRModule mod;
  mod.model_name = "gemm_packed_a";
  mod.kernels.push_back(scheduled(m, cfg, seed));
  mod.kernels[0].name = "gemm_packed_a_kernel";
  mod.inputs = {desc_of(m.A), desc_of(m.Bp), desc_of(m.bias)};
  mod.outputs = {desc_of(m.C)};
  int64_t ap_elems = ((M + mr - 1) / mr) * K * mr;
  mod.workspace_bytes = uint64_t(ap_elems * 4 + 63) / 64 * 64;
  mod.entry.push_back({0,
                       {{ArgRef::kInput, 0},
                        {ArgRef::kWorkspace, 0},
                        {ArgRef::kInput, 1},
                        {ArgRef::kInput, 2},
                        {ArgRef::kOutput, 0}}});
  std::vector<float> a = random_floats(M * K, 1), b = random_floats(K * N, 2);
  std::vector<float> bias_row(size_t((N + nr - 1) / nr * nr), 0.0f);
  for (int64_t j = 0; j < N; ++j) bias_row[size_t(j)] = float(j % 5) - 2.0f;
  std::vector<float> bp = schedule::pack_b_panels(b.data(), K, N, nr);
  std::vector<float> c(size_t(M * N), -7.0f), ws(size_t(mod.workspace_bytes / 4), 99.0f);
  LoadedArtifact art(mod);
  ASSERT_EQ(art.run({a.data(), bp.data(), bias_row.data()}, {c.data()}, ws.data(), threaded), 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = bias_row[size_t(j)];
      for (int64_t k = 0; k < K; ++k)
        want += double(a[size_t(i * K + k)]) * double(b[size_t(k * N + j)]);
      ASSERT_NEAR(c[size_t(i * N + j)], want, 1e-3) << "at (" << i << ", " << j << ")";
    }
}

TEST(MatmulRule, PackedAMatchesReference) {
  expect_packed_a_gemm(64, 96, 192, true);
}

TEST(MatmulRule, PackedAWithRowAndColumnTailsMatchesReference) {
  expect_packed_a_gemm(37, 70, 150, true);  // a masked last row panel and column panel
}

TEST(MatmulRule, AllRowsInOneBlockRunColumnPanelsInParallel) {
  expect_packed_a_gemm(13, 70, 150, true);  // M <= mc: A packed up front, panels in parallel
}

// The rule's tunable choices (K slice, row and column blocks, the all-rows loop order) are
// sampling instructions: random decisions, as a tuner draws them, give correct numbers with
// and without packed A, differ between seeds, and replay to the same kernel.
TEST(MatmulRule, RandomPointsOfItsDesignSpaceMatchReference) {
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  int nr = schedule::matmul_panel_width(cfg);
  PackedMatmul m = schedule::make_packed_matmul(37, 3 * nr + 5, 300, nr);
  std::set<std::string> decisions;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    schedule::Schedule s(m.func, seed);
    s.set_sampling_policy({.ignore_given = true});
    schedule::schedule_packed_matmul(s, "C", cfg);
    std::string d;
    for (const schedule::Instruction& i : s.trace().instructions)
      if (!i.decision.is_null()) d += i.decision.dump() + " ";
    decisions.insert(d);
    schedule::Schedule r = schedule::Trace::from_json(s.trace().to_json()).replay(m.func);
    EXPECT_TRUE(structural_equal(r.func().body, s.func().body));
    expect_gemm(m, s.func(), true);
    expect_packed_a_gemm(37, 70, 300, true, seed);
    expect_packed_a_gemm(13, 70, 150, true, seed);
  }
  EXPECT_GE(decisions.size(), 3u);
}

TEST(MatmulRule, ForcedDecisionPicksTheCandidate) {
  // K = 300, configured kc 64: the K slice candidates are 60, 100, 150 and 300 (the default 60);
  // forcing the first sampling instruction to index 3 gives a micro-kernel of 300 k steps.
  MatmulConfig cfg = small_config(Target::host().vector_bits);
  PackedMatmul m = schedule::make_packed_matmul(37, 70, 300, schedule::matmul_panel_width(cfg));
  schedule::Schedule d(m.func);
  schedule::schedule_packed_matmul(d, "C", cfg);
  const schedule::Instruction& first = d.trace().instructions.at(2);
  ASSERT_EQ(first.kind, "sample_categorical");
  EXPECT_EQ(first.attrs.at("candidates").dump(), "[60,100,150,300]");
  EXPECT_EQ(first.decision, 0);
  schedule::Schedule f(m.func);
  f.set_sampling_policy({.forced = {{0, 3}}});
  schedule::schedule_packed_matmul(f, "C", cfg);
  EXPECT_EQ(f.trace().instructions.at(2).decision, 3);
  std::string text = f.trace().to_python_script();
  EXPECT_NE(text.find("x300\")"), std::string::npos) << text;
  expect_gemm(m, f.func(), false);
  // A forced decision outside the candidates is a schedule error, not a crash.
  schedule::Schedule bad(m.func);
  bad.set_sampling_policy({.forced = {{0, 9}}});
  EXPECT_THROW(schedule::schedule_packed_matmul(bad, "C", cfg), schedule::ScheduleError);
}

TEST(MatmulRule, AccumulatorTileLivesInRegisters) {
  // Only LLVM IR is made, so any machine checks both ISAs (no host features needed).
  for (auto [spec, bits, vec] : {std::tuple{"llvm -mcpu=x86-64-v4", 512, "<16 x float>"},
                                 std::tuple{"llvm -mcpu=znver3", 256, "<8 x float>"}}) {
    Target t = Target::parse(spec);
    ASSERT_EQ(t.vector_bits, bits) << spec;
    MatmulConfig cfg = small_config(bits);
    PackedMatmul m = schedule::make_packed_matmul(64, 128, 128, schedule::matmul_panel_width(cfg));
    std::string ir = emit_llvm_ir(module_of(m, scheduled(m, cfg)), t);
    // After SROA the MR x NR accumulator is vector values (8 x 32 as 16 <16 x float> on AVX-512,
    // 6 x 16 as 12 <8 x float> on AVX2), not a stack array.
    EXPECT_EQ(ir.find("alloca float"), std::string::npos) << spec;  // (the closure alloca stays)
    EXPECT_NE(ir.find(std::string("fmul contract ") + vec), std::string::npos) << spec;
  }
}

TEST(MatmulRule, Avx2MicroKernelMatchesReference) {
  Target t = Target::host();
  if (t.vector_bits < 256) GTEST_SKIP() << "host has no 256-bit vectors";
  MatmulConfig cfg = small_config(256);  // 6 x 16 tile on ymm registers
  int nr = schedule::matmul_panel_width(cfg);
  EXPECT_EQ(nr, 16);
  PackedMatmul m = schedule::make_packed_matmul(30, 50, 100, nr);
  expect_gemm(m, scheduled(m, cfg), false, t);
}

}  // namespace
}  // namespace ingot::codegen::test
