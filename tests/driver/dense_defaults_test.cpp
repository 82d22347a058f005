// The dense matmul rule's defaults per ISA (dense_matmul_config, dense_panel_width). On AVX2
// the register tile is 4 x 24 where N is whole 24-column panels (BERT's 768 and 3072) and
// 6 x 16 otherwise (1024, 200: no padded columns), the K slice about 512 (384 for K = 768), and
// a row task's C rows and A slice stay within 256 KB (MatMul 1024^3: 7 panels of 6 rows, not
// 21), and a block of B's column panels divides them; AVX-512 keeps its 8 x 32 tile, 256-deep
// slices and unbounded row blocks. Read from the
// default trace's decisions of the lowered product; each default kernel replays, and on a host
// with AVX2 its artifact matches a double-precision reference.
#include <gtest/gtest.h>

#include <cmath>

#include "compiled_model.h"
#include "driver/onnx_model_builder.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/matmul.h"
#include "schedule/trace.h"
#include "schedule_points.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

struct Product {
  int64_t m, k, n;
  std::filesystem::path dir;
  std::string onnx;
  std::vector<float> b;
  Product(int64_t m_, int64_t k_, int64_t n_)
      : m(m_),
        k(k_),
        n(n_),
        dir(temp_dir("dense_defaults_" + std::to_string(m) + "_" + std::to_string(k) + "_" +
                     std::to_string(n))),
        b(random_vector(size_t(k * n), 5)) {
    OnnxModelBuilder mb(13);
    mb.input("x", {m, k}, onnx::TensorProto::FLOAT);
    mb.initializer("B", {k, n}, b);
    mb.node("MatMul", {"x", "B"}, {"y"});
    mb.output("y");
    onnx = (dir / "model.onnx").string();
    mb.save(onnx);
  }
};

// The values the default schedule sampled, in trace order.
std::vector<int64_t> sampled_values(const schedule::Schedule& s) {
  std::vector<int64_t> values;
  for (const schedule::Instruction& i : s.trace().instructions)
    if (i.kind == "sample_categorical")
      values.push_back(i.attrs.at("candidates").at(i.decision.get<size_t>()).get<int64_t>());
  return values;
}

// The product's kernel scheduled by the dense rule for a `bits`-wide x86 ISA.
schedule::Schedule default_schedule(const tir::IRModule& mod, int bits) {
  EXPECT_EQ(mod.kernels.size(), 1u);
  tir::PrimFunc f = mod.kernels.at(0);
  EXPECT_EQ(f.schedule_rule, schedule::kDenseMatmulRule);
  schedule::Schedule s(f);
  schedule::find_schedule_rule(f.schedule_rule, "llvm")
      ->apply(s, {"llvm", CpuVectorIsa::x86(bits)});
  schedule::Schedule again = schedule::Trace::from_json(s.trace().to_json()).replay(f);
  EXPECT_TRUE(tir::structural_equal(again.func(), s.func()));
  return s;
}

TEST(DenseMatmulDefaults, Avx2ConfigSlicesKDeeperAndBoundsRowBlocks) {
  const schedule::MatmulConfig avx2 = schedule::dense_matmul_config(CpuVectorIsa::x86(256));
  EXPECT_EQ(avx2.kc, 512);
  EXPECT_EQ(avx2.row_block_bytes, 256 * 1024);
  EXPECT_EQ(avx2.wide_panel_vectors, 3);
  const schedule::MatmulConfig avx512 = schedule::dense_matmul_config(CpuVectorIsa::x86(512));
  EXPECT_EQ(avx512.kc, schedule::MatmulConfig{}.kc);
  EXPECT_EQ(avx512.row_block_bytes, 0);
  EXPECT_EQ(avx512.wide_panel_vectors, 0);
  EXPECT_EQ(schedule::dense_panel_width(avx2, 768), 24);
  EXPECT_EQ(schedule::dense_panel_width(avx2, 1024), 16);
  EXPECT_EQ(schedule::dense_panel_width(avx512, 768), 32);
}

TEST(DenseMatmulDefaults, TheTraceHoldsEachIsasTileSliceAndRowBlock) {
  struct Expect {
    int64_t m, k, n;
    int bits;
    // Sampled: panel width, tile rows, K slice, then column tasks (0 / 1) and, for row tasks,
    // the column panels per block and the row panels per task.
    std::vector<int64_t> head;
    int64_t row_panels;         // -1: column tasks
    int64_t column_panels = 0;  // with row tasks, when checked (> 0)
  };
  for (const Expect& e : {Expect{128, 768, 3072, 256, {24, 4, 384, 1}, -1},
                          Expect{128, 768, 3072, 512, {32, 8, 256, 1}, -1},
                          Expect{1024, 1024, 1024, 256, {16, 6, 512, 0}, 7},
                          Expect{1024, 1024, 1024, 512, {32, 8, 256, 0}, 16},
                          // ConvNeXt's 784x192x768: 32 panels of 24 columns in blocks of 8
                          // (a divisor; blocks of nc / NR = 10 left a masked block of 2).
                          Expect{784, 192, 768, 256, {24, 4, 192, 0}, 17, 8}}) {
    SCOPED_TRACE(std::to_string(e.m) + "x" + std::to_string(e.k) + "x" + std::to_string(e.n) +
                 " at " + std::to_string(e.bits) + " bits");
    Product p(e.m, e.k, e.n);
    schedule::Schedule s = default_schedule(lowered_module(p.onnx, p.dir), e.bits);
    std::vector<int64_t> v = sampled_values(s);
    ASSERT_GE(v.size(), e.head.size());
    EXPECT_EQ(std::vector<int64_t>(v.begin(), v.begin() + std::ptrdiff_t(e.head.size())), e.head);
    if (e.row_panels > 0) {
      ASSERT_EQ(v.size(), e.head.size() + 2);
      EXPECT_EQ(v.back(), e.row_panels);
      if (e.column_panels > 0) {
        EXPECT_EQ(v[v.size() - 2], e.column_panels);
      }
    }
  }
}

// A matrix-vector product (A read in place) takes all of K as its slice by default, so each B
// panel is one contiguous stream, and samples a prefetch distance (default none); its artifact
// matches a double-precision reference on the host.
TEST(DenseMatmulDefaults, AMatrixVectorProductStreamsWholePanels) {
  Product p(1, 1536, 80);
  for (int bits : {256, 512}) {
    SCOPED_TRACE(bits);
    schedule::Schedule s = default_schedule(lowered_module(p.onnx, p.dir), bits);
    std::vector<int64_t> v = sampled_values(s);
    ASSERT_GE(v.size(), 2u);
    EXPECT_EQ(v[1], 1536);   // the K slice: all of K (512 deep slices before)
    EXPECT_EQ(v.back(), 0);  // no prefetch
    const std::string text = s.trace().to_json().dump();
    EXPECT_NE(text.find("[0,1024,2048,4096]"), std::string::npos) << text;
  }
  CompiledModel m(p.onnx, (p.dir / "model.so").string(), driver::CompileOptions{});
  std::vector<float> x = random_vector(size_t(p.k), 7);
  m.set_input("x", x);
  m.run();
  std::vector<float> y = m.output(0);
  ASSERT_EQ(y.size(), size_t(p.n));
  for (int64_t j = 0; j < p.n; ++j) {
    double want = 0;
    for (int64_t k = 0; k < p.k; ++k) want += double(x[size_t(k)]) * p.b[size_t(k * p.n + j)];
    ASSERT_NEAR(y[size_t(j)], want, 1e-3) << j;
  }
}

TEST(DenseMatmulDefaults, TheAvx2DefaultKernelMatchesAReference) {
  driver::CompileOptions o;
  o.target = "llvm -mcpu=x86-64-v3";
  if (!host_runs(o.target)) GTEST_SKIP() << "the host cannot run " << o.target;
  Product p(128, 768, 96);  // 24-column panels, 384-deep slices, 4-row panels
  CompiledModel m(p.onnx, (p.dir / "model.so").string(), o);
  std::vector<float> x = random_vector(size_t(p.m * p.k), 6);
  m.set_input("x", x);
  m.run();
  std::vector<float> y = m.output(0);
  ASSERT_EQ(y.size(), size_t(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < p.k; ++k)
        want += double(x[size_t(i * p.k + k)]) * p.b[size_t(k * p.n + j)];
      ASSERT_NEAR(y[size_t(i * p.n + j)], want, 1e-3) << i << ", " << j;
    }
}

}  // namespace
}  // namespace ingot::testing
