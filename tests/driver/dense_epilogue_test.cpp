// The dense matmul rule places the product's epilogue pass (a fused bias, residual summand and
// activation: one in-place block) in each parallel task right after its part of the product
// (reverse_compute_at), the way the convolution rules place theirs. Relu(MatMul(x, B) + c + r)
// fused by the graph passes is compiled whole. With more rows than one task's block (300, 129:
// tasks of rows) the epilogue block sits under the product's parallel loop; with fewer (128, 70:
// tasks of columns, AVX2's padded row panels included) and at one register tile (4) it stays a
// pass of its own, in row tasks. The default
// traces replay to the same kernels, and the artifact's output matches a double-precision
// reference in each case, with a column tail (200 columns are not whole panels). The rule's
// register tile (B's panel width, A's panel height) is a choice: every panel width matches too.
#include <gtest/gtest.h>

#include <ingot/runtime.h>

#include <algorithm>
#include <cmath>

#include "compiled_model.h"
#include "driver/onnx_model_builder.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/matmul.h"
#include "schedule/trace.h"
#include "schedule_points.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

constexpr int64_t kDepth = 96, kCols = 200;

struct Case {
  int64_t rows;
  std::vector<float> b = random_vector(kDepth * kCols, 1), c = random_vector(kCols, 2);
  std::filesystem::path dir;
  std::string onnx;
  explicit Case(int64_t m) : rows(m), dir(temp_dir("dense_epilogue_" + std::to_string(m))) {
    OnnxModelBuilder mb(13);
    mb.input("x", {rows, kDepth}, onnx::TensorProto::FLOAT);
    mb.input("r", {rows, kCols}, onnx::TensorProto::FLOAT);
    mb.initializer("B", {kDepth, kCols}, b);
    mb.initializer("c", {kCols}, c);
    mb.node("MatMul", {"x", "B"}, {"p"});
    mb.node("Add", {"p", "c"}, {"q"});
    mb.node("Add", {"q", "r"}, {"s"});
    mb.node("Relu", {"s"}, {"y"});
    mb.output("y");
    onnx = (dir / "model.onnx").string();
    mb.save(onnx);
  }
};

// The lowered module (the compile stops after lowering), rules assigned.
tir::IRModule lowered(const Case& c) {
  return lowered_module(c.onnx, c.dir);
}

// The artifact `so` of the case's model against the reference.
void expect_artifact_matches(const Case& c, const std::string& so) {
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  std::vector<float> x = random_vector(size_t(c.rows * kDepth), 3);
  std::vector<float> r = random_vector(size_t(c.rows * kCols), 4);
  std::vector<int64_t> xs{c.rows, kDepth}, rs{c.rows, kCols};
  DLTensor xt = f32_tensor(x, xs), rt = f32_tensor(r, rs);
  ASSERT_EQ(ingot_session_set_input(session, 0, &xt), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_set_input(session, 1, &rt), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  DLTensor y;
  ASSERT_EQ(ingot_session_output(session, 0, &y), INGOT_OK);
  auto* yp = static_cast<const float*>(y.data);
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < kCols; ++j) {
      double want = double(c.c[size_t(j)]) + r[size_t(i * kCols + j)];
      for (int64_t k = 0; k < kDepth; ++k)
        want += double(x[size_t(i * kDepth + k)]) * c.b[size_t(k * kCols + j)];
      ASSERT_NEAR(yp[i * kCols + j], std::max(want, 0.0), 1e-4) << i << ", " << j;
    }
  ingot_session_free(session);
  ingot_model_free(model);
}

// The case compiled by default against the reference.
void expect_reference(const Case& c) {
  std::string so = (c.dir / "model.so").string();
  driver::CompileOptions o;
  std::ostringstream dump;
  driver::compile_model(c.onnx, so, o, dump);
  expect_artifact_matches(c, so);
}

TEST(DenseEpilogue, RunsInTheProductsParallelTasksAndMatchesAReference) {
  // Row tasks above 128 rows (MatmulConfig::mc) on both vector widths: the product's rows decide,
  // not its padded panels' (128 rows are 22 panels of 6 with AVX2, 132 rows; a regression: BERT's
  // 128-token products ran as row tasks on AVX2, each streaming all of B).
  for (auto [rows, bits] : {std::pair<int64_t, int>{300, 512},
                            {129, 256},
                            {128, 256},
                            {128, 512},
                            {70, 512},
                            {4, 512}}) {
    SCOPED_TRACE("rows " + std::to_string(rows) + ", " + std::to_string(bits) + " bits");
    Case c(rows);
    tir::IRModule mod = lowered(c);
    ASSERT_EQ(mod.kernels.size(), 1u);  // the product with its fused epilogue
    tir::PrimFunc f = mod.kernels[0];
    ASSERT_EQ(f.schedule_rule, schedule::kDenseMatmulRule);
    const schedule::RuleTarget target{"llvm", CpuVectorIsa::x86(bits)};
    schedule::Schedule s(f);
    schedule::find_schedule_rule(f.schedule_rule, "llvm")->apply(s, target);
    // The epilogue block's outermost loop is parallel: the product's task loop, or its own.
    std::vector<schedule::LoopRV> loops = s.get_loops(s.get_block("compute"));
    ASSERT_GE(loops.size(), 1u);
    auto task = schedule::find_loop(s.func().body, s.loop_var(loops[0]).node());
    ASSERT_TRUE(task.has_value());
    EXPECT_EQ(task->node->kind, tir::ForKind::kParallel);
    bool under_product = false;
    for (schedule::BlockRV b : s.get_child_blocks(loops[0]))
      under_product = under_product || s.name_of(b).starts_with("matmul");
    EXPECT_EQ(under_product, rows > 128);
    schedule::Schedule again = schedule::Trace::from_json(s.trace().to_json()).replay(f);
    EXPECT_TRUE(tir::structural_equal(again.func(), s.func()));
    expect_reference(c);
  }
}

// The rule's register tile is in its design space: B's panel width (1 to 4 vectors, the first
// sampling instruction) and, with packed A, the tile's rows. Every panel width, forced, with
// the other decisions drawn, replays and matches the reference, with packed A (300 rows) and
// without (4 rows), the bias padded to the panels and 200 columns a tail of every width.
TEST(DenseMatmulTiles, EveryPanelWidthMatchesAReference) {
  schedule::MatmulConfig cfg;
  const schedule::RuleTarget target = driver::rule_target(codegen::Target::host());
  cfg.vector_bits = target.isa.vector_bits;
  cfg.arch = target.isa.arch;
  const std::vector<int64_t> widths = schedule::matmul_panel_widths(cfg);
  if (target.isa.arch == CpuVectorIsa::kX86) {
    ASSERT_GE(widths.size(), 3u);
    EXPECT_NE(std::find(widths.begin(), widths.end(), schedule::matmul_panel_width(cfg)),
              widths.end());
  }
  for (int64_t rows : {300, 4}) {
    SCOPED_TRACE("rows " + std::to_string(rows));
    Case c(rows);
    tir::IRModule mod = lowered(c);
    std::set<std::string> traces;
    for (size_t w = 0; w < widths.size(); ++w) {
      SCOPED_TRACE("panel width " + std::to_string(widths[w]));
      const std::string so = (c.dir / ("nr" + std::to_string(w) + ".so")).string();
      build_point(mod, schedule::kDenseMatmulRule, w + 1,
                  {.ignore_given = true, .forced = {{0, nlohmann::json(w)}}}, so, traces);
      expect_artifact_matches(c, so);
      // The micro-kernel's name carries the tile: <MR>x<NR>x<K> or <MR>x<NR>_k...
      const std::string nr = "x" + std::to_string(widths[w]);
      EXPECT_TRUE(std::any_of(traces.begin(), traces.end(), [&](const std::string& t) {
        return t.find(nr + "x") != std::string::npos || t.find(nr + "_k") != std::string::npos;
      })) << nr;
    }
    EXPECT_EQ(traces.size(), widths.size());
  }
}

}  // namespace
}  // namespace ingot::testing
