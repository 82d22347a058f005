// Rule symbolic_rows_matmul (schedule/rules/matmul_symbolic_rows.h) on lowered products over a
// symbolic sequence length: lowering describes MatMul + bias + Relu and a Gemm with transB as
// blocks over the symbolic rows, the rule is chosen by their pattern (and places the Relu
// epilogue after each tile), and its default point and
// random points of its design space (column panels per task, the tile's rows, the prefetch
// distance) are compiled, run at several lengths of one artifact (whole row tiles, partial ones,
// a single row) and checked against products computed here in double precision. The traces
// replay to the same kernels. A tied table's Gather takes the product's layout
// (share_constant_layouts), so the module stores the table once.
#include <gtest/gtest.h>

#include <ingot/runtime.h>

#include <cmath>
#include <set>

#include "compiled_model.h"
#include "driver/dim_bounds.h"
#include "driver/onnx_model_builder.h"
#include "graph/transforms/pass_manager.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/matmul_symbolic_rows.h"
#include "schedule/trace.h"
#include "schedule_points.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

// K = 48; B [48, 200] (the last panel a column tail); W2 [96, 48] read transposed.
constexpr int64_t kDepth = 48, kCols = 200, kCols2 = 96;

struct Weights {
  std::vector<float> b = random_vector(kDepth * kCols, 1), c = random_vector(kCols, 2),
                     w2 = random_vector(kCols2 * kDepth, 3), c2 = random_vector(kCols2, 4);
};

// x [seq, 48] -> y = Relu(MatMul(x, B) + c) [seq, 200]; z = Gemm(x, W2, c2, transB) [seq, 96].
std::string model_file(const Weights& w, const std::filesystem::path& dir) {
  OnnxModelBuilder b(13);
  b.input("x", {0, kDepth}, onnx::TensorProto::FLOAT, {"seq", ""});
  b.initializer("B", {kDepth, kCols}, w.b);
  b.initializer("c", {kCols}, w.c);
  b.initializer("W2", {kCols2, kDepth}, w.w2);
  b.initializer("c2", {kCols2}, w.c2);
  b.node("MatMul", {"x", "B"}, {"p"});
  b.node("Add", {"p", "c"}, {"q"});
  b.node("Relu", {"q"}, {"y"});
  OnnxModelBuilder::attr_int(b.node("Gemm", {"x", "W2", "c2"}, {"z"}), "transB", 1);
  b.output("y");
  b.output("z");
  std::string path = (dir / "symrows.onnx").string();
  b.save(path);
  return path;
}

// The lowered, unscheduled module (the compile ends after lowering).
tir::IRModule lowered(const std::string& onnx, const std::filesystem::path& dir) {
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..16");
  return lowered_module(onnx, dir, o);
}

// Runs the artifact at each length and checks both outputs against double-precision products.
void expect_products(const std::string& so, const Weights& w) {
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  for (int64_t seq : {1, 2, 7, 8, 9, 16}) {
    SCOPED_TRACE("seq " + std::to_string(seq));
    std::vector<float> x = random_vector(size_t(seq * kDepth), uint32_t(10 + seq));
    std::vector<int64_t> xs{seq, kDepth};
    DLTensor xt = f32_tensor(x, xs);
    ASSERT_EQ(ingot_session_set_input(session, 0, &xt), INGOT_OK) << ingot_last_error();
    ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
    DLTensor y, z;
    ASSERT_EQ(ingot_session_output(session, 0, &y), INGOT_OK);
    ASSERT_EQ(ingot_session_output(session, 1, &z), INGOT_OK);
    ASSERT_EQ(y.shape[0], seq);
    ASSERT_EQ(z.shape[0], seq);
    auto* yp = static_cast<const float*>(y.data);
    auto* zp = static_cast<const float*>(z.data);
    for (int64_t i = 0; i < seq; ++i) {
      for (int64_t j = 0; j < kCols; ++j) {
        double want = w.c[size_t(j)];
        for (int64_t k = 0; k < kDepth; ++k)
          want += double(x[size_t(i * kDepth + k)]) * w.b[size_t(k * kCols + j)];
        ASSERT_NEAR(yp[i * kCols + j], std::max(want, 0.0), 1e-4) << "y at " << i << ", " << j;
      }
      for (int64_t j = 0; j < kCols2; ++j) {
        double want = w.c2[size_t(j)];
        for (int64_t k = 0; k < kDepth; ++k)
          want += double(x[size_t(i * kDepth + k)]) * w.w2[size_t(j * kDepth + k)];
        ASSERT_NEAR(zp[i * kCols2 + j], want, 1e-4) << "z at " << i << ", " << j;
      }
    }
  }
  ingot_session_free(session);
  ingot_model_free(model);
}

TEST(SymbolicRowsMatmul, TheRuleTakesBothProductsByPatternAndMatchesAReference) {
  Weights w;
  const std::filesystem::path dir = temp_dir("symrows");
  std::string onnx = model_file(w, dir);
  tir::IRModule mod = lowered(onnx, dir);
  schedule::assign_schedule_rules(mod, "llvm");
  int taken = 0;
  for (const tir::PrimFunc& f : mod.kernels)
    taken += f.schedule_rule == schedule::kSymbolicRowsMatmulRule;
  EXPECT_EQ(taken, 2);
  // B's 200 columns are not whole panels (of 32 or 16): the last panel's rows run the one-row
  // kernel on a scratch copy of their output tile, not scalar loops.
  tir::IRModule scheduled = mod;
  schedule::apply_default_schedules(scheduled, driver::rule_target(codegen::Target::host()));
  int scratch = 0, placed = 0;
  for (const tir::PrimFunc& f : scheduled.kernels)
    if (f.schedule_rule == schedule::kSymbolicRowsMatmulRule) {
      scratch += tir::to_string(f).find("partial_C") != std::string::npos;
      // The Relu epilogue runs after each tile (one fusion mechanism), not as a pass after.
      placed += f.schedule_trace.find("reverse_compute_at") != std::string::npos;
    }
  EXPECT_GE(scratch, 1);
  EXPECT_EQ(placed, 1);
  // The default schedule, through the whole compile.
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..16");
  std::string so = (dir / "default.so").string();
  std::ostringstream dump;
  driver::compile_model(onnx, so, o, dump);
  expect_products(so, w);
}

TEST(SymbolicRowsMatmul, RandomPointsOfItsDesignSpaceMatchAReferenceAndReplay) {
  Weights w;
  const std::filesystem::path dir = temp_dir("symrows_points");
  tir::IRModule unscheduled = lowered(model_file(w, dir), dir);
  std::set<std::string> traces;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::string so = (dir / ("p" + std::to_string(seed) + ".so")).string();
    build_random_point(unscheduled, schedule::kSymbolicRowsMatmulRule, seed, so, traces);
    expect_products(so, w);
  }
  EXPECT_GE(traces.size(), 6u);  // two kernels per seed, points that differ
}

// One-row tiles (the tile-rows choice at its first candidate, 1; a random point on an AVX2 host
// drew it): a split by 1 leaves no row mask, and the last panel's column tail runs the one-row
// kernel on a scratch tile (before, the tail-rows tensorize found no loop to shorten and threw).
TEST(SymbolicRowsMatmul, OneRowTilesMatchAReference) {
  Weights w;
  const std::filesystem::path dir = temp_dir("symrows_one_row");
  tir::IRModule unscheduled = lowered(model_file(w, dir), dir);
  std::set<std::string> traces;
  std::string so = (dir / "one_row.so").string();
  // Sampling instructions in order: panels per task, tile rows, prefetch distance.
  build_point(unscheduled, schedule::kSymbolicRowsMatmulRule, 0, {.forced = {{1, 0}}}, so, traces);
  ASSERT_EQ(traces.size(), 2u);
  for (const std::string& t : traces) EXPECT_NE(t.find("_1x"), std::string::npos) << t;
  expect_products(so, w);
}

// A product over symbolic rows of a rank-3 A ([1, seq, 48], viewed as [seq, 48]) whose reader
// Tanh the graph folds into its epilogue: the epilogue pass follows the rule's tiles and the
// numbers match the reference at a single row and at a partial tile.
TEST(SymbolicRowsMatmul, ARank3ProductWithATanhEpilogueMatchesAReference) {
  std::vector<float> w = random_vector(kDepth * kCols, 11);
  OnnxModelBuilder b(13);
  b.input("x", {1, 0, kDepth}, onnx::TensorProto::FLOAT, {"", "seq", ""});
  b.initializer("B", {kDepth, kCols}, w);
  b.node("MatMul", {"x", "B"}, {"p"});
  b.node("Tanh", {"p"}, {"y"});
  b.output("y");
  const std::filesystem::path dir = temp_dir("symrows_fused");
  b.save((dir / "fused.onnx").string());
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..8");
  std::ostringstream dump;
  driver::compile_model((dir / "fused.onnx").string(), (dir / "fused.so").string(), o, dump);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load((dir / "fused.so").c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  for (int64_t seq : {1, 5}) {
    std::vector<float> x = random_vector(size_t(seq * kDepth), uint32_t(20 + seq));
    std::vector<int64_t> xs{1, seq, kDepth};
    DLTensor xt = f32_tensor(x, xs);
    ASSERT_EQ(ingot_session_set_input(session, 0, &xt), INGOT_OK) << ingot_last_error();
    ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
    DLTensor y;
    ASSERT_EQ(ingot_session_output(session, 0, &y), INGOT_OK);
    auto* yp = static_cast<const float*>(y.data);
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t j = 0; j < kCols; ++j) {
        double want = 0;
        for (int64_t k = 0; k < kDepth; ++k)
          want += double(x[size_t(i * kDepth + k)]) * w[size_t(k * kCols + j)];
        ASSERT_NEAR(yp[i * kCols + j], std::tanh(want), 1e-5) << i << ", " << j;
      }
  }
  ingot_session_free(session);
  ingot_model_free(model);
}

// A tied table: ids [seq] -> e = Gather(W, ids) [seq, 32]; logits = MatMul(e, W^T) [seq, 96]. The
// LM head's rule lays W out in column panels; share_constant_layouts schedules the Gather again
// with that layout first, so the module stores W once, and both traces replay.
TEST(SymbolicRowsMatmul, ATiedTablesGatherReadsTheProductsPanelsAndReplays) {
  constexpr int64_t kVocab = 96, kWidth = 32;
  const std::filesystem::path dir = temp_dir("symrows_tied");
  const std::string onnx = tied_table_model(dir, kVocab, kWidth, random_vector(kVocab * kWidth, 9));
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..8");
  o.disabled_passes = {graph::kFoldConstantsPass};  // keep the Transpose a view of W
  tir::IRModule mod = lowered_module(onnx, dir, o);
  ASSERT_EQ(mod.constants.size(), size_t(kVocab * kWidth * sizeof(float)));  // W alone
  const tir::IRModule unscheduled = mod;
  schedule::apply_default_schedules(mod, driver::rule_target(codegen::Target::host()));
  // W once, in the panels (96 rows: whole panels of 16 or 32, no padding).
  EXPECT_EQ(mod.constants.size(), size_t(kVocab * kWidth * sizeof(float)));
  std::vector<schedule::Trace> gathers = injective_traces_replayed(mod, unscheduled);
  ASSERT_EQ(gathers.size(), 1u);
  EXPECT_EQ(gathers[0].instructions.at(1).kind, "transform_layout");
}

}  // namespace
}  // namespace ingot::testing
