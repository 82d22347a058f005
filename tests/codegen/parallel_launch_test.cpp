// A parallel loop over symbolic extents launches the thread pool only when its run-time work
// (tir/work_estimate.h) is worth it: few rows run as one task on the caller, many rows as up to
// 64 tasks; a static parallel loop keeps its launch whatever its size. Checked by counting the
// tasks the services' parallel_for sees, and every output against the closed form.
#include <gtest/gtest.h>

#include "artifact_util.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

// w[r] = sum_k x[r, k] over r < seq (parallel), k < 4.
IRModule row_sum_module() {
  Var seq("seq", DataType::i64());
  Buffer x = Buffer::make("x", DataType::f32(), std::vector<Expr>{seq, i64(4)});
  Buffer w = Buffer::make("w", DataType::f32(), std::vector<Expr>{seq});
  Var r("r"), k("k");
  Stmt sum = For::make(r, i64(0), seq, ForKind::kParallel,
                       SeqStmt::make({BufferStore::make(w, f32(0), {r}),
                                      For::make(k, i64(0), i64(4), ForKind::kSerial,
                                                BufferStore::make(w, w(r) + x(r, k), {r}))}));
  PrimFunc f{"row_sum", {x, w}, sum};
  f.shape_vars = {seq};
  IRModule m;
  m.model_name = "rowsum";
  m.kernels = {f};
  m.symbols = {{"seq", 1, 1 << 20, seq}};
  m.inputs = {TensorDesc{"x", DataType::f32(), {-1, 4}, {"seq", ""}}};
  m.outputs = {TensorDesc{"w", DataType::f32(), {-1}, {"seq"}}};
  m.outputs[0].shape_exprs = {seq};
  m.entry = {{0, {{ArgRef::kInput, 0}, {ArgRef::kOutput, 0}}}};
  return m;
}

TEST(ParallelLaunch, SymbolicNestsLaunchTheirTasksOnlyWithEnoughWork) {
  LoadedArtifact art(row_sum_module());
  // Work per row: 5 stores. Below 16384 units: one task; above: min(seq, 64) tasks.
  for (auto [seq, tasks] : {std::pair<int64_t, int64_t>{1, 1}, {7, 1}, {3000, 1}, {4000, 64}}) {
    std::vector<float> x = random_floats(seq * 4, uint32_t(seq)), w(size_t(seq), -1.0f);
    ServiceStats stats;
    ASSERT_EQ(art.run({x.data()}, {w.data()}, nullptr, false, &stats, &seq), 0);
    EXPECT_EQ(stats.launches.load(), 1) << "seq " << seq;
    EXPECT_EQ(stats.tasks.load(), tasks) << "seq " << seq;
    for (int64_t r = 0; r < seq; ++r) {
      float want = 0;
      for (int k = 0; k < 4; ++k) want += x[size_t(r * 4 + k)];
      ASSERT_FLOAT_EQ(w[size_t(r)], want) << "seq " << seq << " row " << r;
    }
  }
}

TEST(ParallelLaunch, StaticNestsKeepTheirTasks) {
  // y[i] = 2 x[i] over a static parallel loop of 8: tiny, but the schedule chose it.
  Buffer x = make_buffer("X", DataType::f32(), {8});
  Buffer y = make_buffer("Y", DataType::f32(), {8});
  Var i("i");
  Stmt body =
      For::make(i, i64(0), i64(8), ForKind::kParallel, BufferStore::make(y, x(i) * 2.0f, {i}));
  LoadedArtifact art(single_kernel_module("twice8", {x, y}, body, 1));
  std::vector<float> xs = random_floats(8, 3), ys(8);
  ServiceStats stats;
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}, nullptr, false, &stats), 0);
  EXPECT_EQ(stats.tasks.load(), 8);
  for (int k = 0; k < 8; ++k) EXPECT_FLOAT_EQ(ys[size_t(k)], 2 * xs[size_t(k)]);
}

}  // namespace
}  // namespace ingot::codegen::test
