// Rule dequant_matmul (schedule/rules/matmul_dequant.h) on weight-only quantized products
// (--quantize-weights int8 / int4): lowering describes each WQMatMul as one block over the
// integers' row-major layout, the rule is chosen by its pattern, lays the integers and scales
// out in column panels and tensorizes the tile with the dequantizing micro-kernel
// (schedule/intrin/dequant_fma.h). Its default point and random points of its design space run
// at several lengths of one artifact (whole row tiles, partial ones, one row) and at static
// rows, checked against products computed here in double precision from weights quantized here
// by the documented scheme (symmetric, one scale per group along K, max |w| / 127 or / 7,
// rounding half away from zero). The traces replay to the same kernels.
#include <gtest/gtest.h>

#include <ingot/runtime.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "compiled_model.h"
#include "driver/dim_bounds.h"
#include "driver/onnx_model_builder.h"
#include "graph/transforms/pass_manager.h"
#include "schedule/intrin/dequant_fma.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/injective.h"
#include "schedule/trace.h"
#include "schedule_points.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

// K = 128 (two groups of 64); B [128, 200] (the last panel a column tail); W2 [40, 128] read
// transposed with a bias (fewer columns than one panel of 64).
constexpr int64_t kDepth = 128, kCols = 200, kCols2 = 40, kGroup = 64;

struct Weights {
  std::vector<float> b = random_vector(kDepth * kCols, 1), w2 = random_vector(kCols2 * kDepth, 3),
                     c2 = random_vector(kCols2, 4);
};

// B(k, n) quantized and dequantized (at(k, n) reads the float weight).
template <class At>
std::vector<double> dequantized(int bits, int64_t k_dim, int64_t n_dim, At at) {
  const double qmax = bits == 8 ? 127 : 7;
  std::vector<double> out(size_t(k_dim * n_dim));
  for (int64_t g = 0; g < k_dim / kGroup; ++g)
    for (int64_t n = 0; n < n_dim; ++n) {
      float amax = 0;
      for (int64_t k = g * kGroup; k < (g + 1) * kGroup; ++k)
        amax = std::max(amax, std::fabs(at(k, n)));
      const float scale = amax > 0 ? amax / float(qmax) : 1.0f;
      for (int64_t k = g * kGroup; k < (g + 1) * kGroup; ++k) {
        double q = std::clamp<double>(double(std::lround(at(k, n) / scale)), -qmax, qmax);
        out[size_t(k * n_dim + n)] = q * double(scale);
      }
    }
  return out;
}

// x [rows, 128] -> y = MatMul(x, B) [rows, 200]; z = Gemm(x, W2, c2, transB) [rows, 40]. Rows
// symbolic ("seq") when rows == 0.
std::string model_file(const Weights& w, const std::filesystem::path& dir, int64_t rows) {
  OnnxModelBuilder b(13);
  b.input("x", {rows, kDepth}, onnx::TensorProto::FLOAT, {rows == 0 ? "seq" : "", ""});
  b.initializer("B", {kDepth, kCols}, w.b);
  b.initializer("W2", {kCols2, kDepth}, w.w2);
  b.initializer("c2", {kCols2}, w.c2);
  b.node("MatMul", {"x", "B"}, {"y"});
  OnnxModelBuilder::attr_int(b.node("Gemm", {"x", "W2", "c2"}, {"z"}), "transB", 1);
  b.output("y");
  b.output("z");
  std::string path = (dir / (rows == 0 ? "wq.onnx" : "wq_static.onnx")).string();
  b.save(path);
  return path;
}

driver::CompileOptions options(int bits, bool symbolic = true) {
  driver::CompileOptions o;
  if (symbolic) o.dim_bounds = driver::parse_dim_bounds("seq:1..16");
  o.quantize_weights = bits == 8 ? "int8" : "int4";
  o.group_size = int(kGroup);
  return o;
}

// Runs the artifact at each length and checks both outputs against double-precision products of
// the dequantized weights.
void expect_products(const std::string& so, const Weights& w, int bits,
                     const std::vector<int64_t>& lengths) {
  const std::vector<double> b = dequantized(
      bits, kDepth, kCols, [&](int64_t k, int64_t n) { return w.b[size_t(k * kCols + n)]; });
  const std::vector<double> w2 = dequantized(
      bits, kDepth, kCols2, [&](int64_t k, int64_t n) { return w.w2[size_t(n * kDepth + k)]; });
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  for (int64_t seq : lengths) {
    SCOPED_TRACE("rows " + std::to_string(seq));
    std::vector<float> x = random_vector(size_t(seq * kDepth), uint32_t(10 + seq));
    std::vector<int64_t> xs{seq, kDepth};
    DLTensor xt = f32_tensor(x, xs);
    ASSERT_EQ(ingot_session_set_input(session, 0, &xt), INGOT_OK) << ingot_last_error();
    ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
    DLTensor y, z;
    ASSERT_EQ(ingot_session_output(session, 0, &y), INGOT_OK);
    ASSERT_EQ(ingot_session_output(session, 1, &z), INGOT_OK);
    ASSERT_EQ(y.shape[0], seq);
    auto* yp = static_cast<const float*>(y.data);
    auto* zp = static_cast<const float*>(z.data);
    for (int64_t i = 0; i < seq; ++i) {
      for (int64_t j = 0; j < kCols; ++j) {
        double want = 0;
        for (int64_t k = 0; k < kDepth; ++k)
          want += double(x[size_t(i * kDepth + k)]) * b[size_t(k * kCols + j)];
        ASSERT_NEAR(yp[i * kCols + j], want, 1e-4 * (1 + std::fabs(want)))
            << "y at " << i << ", " << j;
      }
      for (int64_t j = 0; j < kCols2; ++j) {
        double want = w.c2[size_t(j)];
        for (int64_t k = 0; k < kDepth; ++k)
          want += double(x[size_t(i * kDepth + k)]) * w2[size_t(k * kCols2 + j)];
        ASSERT_NEAR(zp[i * kCols2 + j], want, 1e-4 * (1 + std::fabs(want)))
            << "z at " << i << ", " << j;
      }
    }
  }
  ingot_session_free(session);
  ingot_model_free(model);
}

class DequantMatmul : public ::testing::TestWithParam<int> {};

TEST_P(DequantMatmul, TheRuleTakesBothProductsByPatternAndMatchesAReference) {
  const int bits = GetParam();
  Weights w;
  const std::filesystem::path dir = temp_dir("dequant_mm" + std::to_string(bits));
  const std::string onnx = model_file(w, dir, 0);
  tir::IRModule mod = lowered_module(onnx, dir, options(bits));
  int taken = 0;
  for (const tir::PrimFunc& f : mod.kernels)
    taken += f.schedule_rule == schedule::kDequantMatmulRule;
  EXPECT_EQ(taken, 2);
  std::string so = (dir / "default.so").string();
  std::ostringstream dump;
  driver::CompileOptions o = options(bits);
  o.dump = {"traces"};
  driver::compile_model(onnx, so, o, dump);
  // Both products by the micro-kernel (its name in their traces).
  const std::string traces = dump.str();
  size_t uses = 0;
  for (size_t at = traces.find("_dequant_i" + std::to_string(bits)); at != std::string::npos;
       at = traces.find("_dequant_i" + std::to_string(bits), at + 1))
    ++uses;
  EXPECT_GE(uses, 2u) << traces;
  expect_products(so, w, bits, {1, 2, 5, 8, 9, 16});
}

TEST_P(DequantMatmul, RandomPointsOfItsDesignSpaceMatchAReferenceAndReplay) {
  const int bits = GetParam();
  Weights w;
  const std::filesystem::path dir = temp_dir("dequant_points" + std::to_string(bits));
  tir::IRModule unscheduled = lowered_module(model_file(w, dir, 0), dir, options(bits));
  std::set<std::string> traces;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::string so = (dir / ("p" + std::to_string(seed) + ".so")).string();
    build_random_point(unscheduled, schedule::kDequantMatmulRule, seed, so, traces);
    expect_products(so, w, bits, {1, 7, 16});
  }
  EXPECT_GE(traces.size(), 4u);  // two kernels per seed, points that differ
}

// Static rows (6: one tile of 4 and two rows past it) take the same rule.
TEST_P(DequantMatmul, StaticRowsTakeTheRuleAndMatchAReference) {
  const int bits = GetParam();
  Weights w;
  const std::filesystem::path dir = temp_dir("dequant_static" + std::to_string(bits));
  const std::string onnx = model_file(w, dir, 6);
  tir::IRModule mod = lowered_module(onnx, dir, options(bits, false));
  int taken = 0;
  for (const tir::PrimFunc& f : mod.kernels)
    taken += f.schedule_rule == schedule::kDequantMatmulRule;
  EXPECT_EQ(taken, 2);
  std::string so = (dir / "static.so").string();
  std::ostringstream dump;
  driver::compile_model(onnx, so, options(bits, false), dump);
  expect_products(so, w, bits, {6});
}

// The AVX2 kernels (16-column panels, 8 lanes; every x86 host of the suite runs them).
TEST_P(DequantMatmul, TheAvx2KernelsMatchAReference) {
  const int bits = GetParam();
  Weights w;
  const std::filesystem::path dir = temp_dir("dequant_avx2" + std::to_string(bits));
  const std::string onnx = model_file(w, dir, 0);
  driver::CompileOptions o = options(bits);
  o.target = "llvm -mcpu=haswell";
  o.dump = {"traces"};
  std::string so = (dir / "avx2.so").string();
  std::ostringstream dump;
  driver::compile_model(onnx, so, o, dump);
  EXPECT_NE(dump.str().find("x86_avx2_dequant_i" + std::to_string(bits)), std::string::npos);
  expect_products(so, w, bits, {1, 5, 16});
}

INSTANTIATE_TEST_SUITE_P(Bits, DequantMatmul, ::testing::Values(8, 4));

// A tied quantized table: ids [seq] -> e = Gather(W, ids); logits = MatMul(e, W^T). The LM head's
// rule lays out both the integers and the scales; share_constant_layouts schedules the WQGather
// again with both layouts first (one schedule), so the module stores the table once, and every
// trace replays.
TEST(DequantMatmulTied, TheGatherReadsBothLaidOutConstantsAndReplays) {
  constexpr int64_t kVocab = 96, kWidth = 64;
  const std::filesystem::path dir = temp_dir("dequant_tied");
  const std::string onnx = tied_table_model(dir, kVocab, kWidth, random_vector(kVocab * kWidth, 9));
  driver::CompileOptions o = options(8);
  o.group_size = 32;
  o.disabled_passes = {graph::kFoldConstantsPass};  // keep the Transpose a view of W
  tir::IRModule mod = lowered_module(onnx, dir, o);
  // The integers [64, 96] and scales [2, 96] once each.
  const size_t plain = size_t(kWidth * kVocab + (kWidth / 32) * kVocab * 4);
  ASSERT_EQ(mod.constants.size(), plain);
  const tir::IRModule unscheduled = mod;
  schedule::apply_default_schedules(mod, driver::rule_target(codegen::Target::host()));
  // Both in panels (padded to whole panels), not beside their plain copies.
  EXPECT_GE(mod.constants.size(), plain);
  EXPECT_LT(mod.constants.size(), 2 * plain);
  std::vector<schedule::Trace> gathers = injective_traces_replayed(mod, unscheduled);
  ASSERT_EQ(gathers.size(), 1u);
  EXPECT_EQ(gathers[0].instructions.at(1).kind, "transform_layout");
  EXPECT_EQ(gathers[0].instructions.at(3).kind, "transform_layout");
}

TEST(DequantTile, NamesRoundTripAndBadNamesAreRefused) {
  schedule::DequantTileSpec s{CpuVectorIsa::kX86, 16, 4, 3, 32, 768, 128, 4096};
  const std::string name = schedule::dequant_tile_name(s);
  EXPECT_EQ(name, "x86_avx512_dequant_i4_f32_3x32_k768_g128_p4096");
  std::optional<schedule::DequantTileSpec> back = schedule::parse_dequant_tile_name(name);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(schedule::dequant_tile_name(*back), name);
  EXPECT_EQ(back->bits, 4);
  EXPECT_EQ(back->prefetch, 4096);
  schedule::DequantTileSpec neon{CpuVectorIsa::kAArch64, 4, 8, 1, 16, 256, 64, 0};
  EXPECT_EQ(schedule::parse_dequant_tile_name(schedule::dequant_tile_name(neon))->lanes, 4);
  for (const char* bad :
       {"x86_avx512_dequant_i5_f32_3x32_k768_g128",       // bits
        "x86_avx512_dequant_i8_f32_3x32_k768_g100",       // K not whole groups
        "x86_avx512_dequant_i8_f32_3x32_k768_g128_p100",  // prefetch
        "x86_sse_dequant_i8_f32_3x32_k768_g128", "x86_avx512_dequant_i8_f32_3x32"})
    EXPECT_FALSE(schedule::parse_dequant_tile_name(bad).has_value()) << bad;
}

}  // namespace
}  // namespace ingot::testing
