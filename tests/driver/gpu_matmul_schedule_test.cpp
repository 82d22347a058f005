// The GPU matmul rule (schedule/rules/gpu_matmul.h) on a lowered batched MatMul whose sizes leave
// partial tiles on every axis: its default point stages per-block tiles of both operands in
// shared memory between two barriers per k-slab and accumulates per-thread register tiles of the
// sizes the defaults give; random points of its design space (tile sizes, threads, slab depth)
// keep within the thread budget and, built for OpenCL and run on the runtime's OpenCL device
// (PoCL here), match a float64 product computed in the test. One-row products (GEMV) with a long
// k split it across rows of threads; their random points, with a fused bias and Relu, match too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "codegen/gpu/device_lowering.h"
#include "codegen/gpu/device_printer.h"
#include "driver/loop_passes.h"
#include "gpu_schedule_util.h"
#include "graph/transforms/rewrite_util.h"
#include "tir/op.h"
#include "tir/visitor.h"

namespace ingot::testing {
namespace {

constexpr int64_t kB = 2, kM = 37, kK = 29, kN = 45;

float weight(int64_t k, int64_t n) {
  return float((k * 7 + n * 3) % 11) * 0.125f - 0.6f;
}
float input(int64_t i) {
  return float((i * 37) % 101) * 0.02f - 1.0f;
}

float bias(int64_t n) {
  return float(n % 7) * 0.5f - 1.5f;
}

// y[B,M,N] = x[B,M,K] @ W[K,N] (constant), lowered for a GPU target (default: 2, 37, 29, 45);
// with `epilogue`, Relu(y + bias[N]) fused into the MatMul (fuse_epilogue's form).
tir::IRModule lowered_matmul(int64_t b = kB, int64_t m = kM, int64_t kk = kK, int64_t nn = kN,
                             bool epilogue = false) {
  graph::Graph g;
  graph::TensorType t{graph::DType::kF32, {}};
  for (int64_t d : {b, m, kk}) t.shape.push_back(graph::Dim::fixed(d));
  graph::Value* x = g.add_value("x", t);
  g.inputs = {x};
  std::vector<float> w(size_t(kk * nn));
  for (int64_t k = 0; k < kk; ++k)
    for (int64_t n = 0; n < nn; ++n) w[size_t(k * nn + n)] = weight(k, n);
  graph::Value* wv = g.add_constant("w", graph::f32_constant({kk, nn}, w));
  std::vector<graph::Value*> ins = {x, wv};
  if (epilogue) {
    std::vector<float> bv(static_cast<size_t>(nn));
    for (int64_t n = 0; n < nn; ++n) bv[size_t(n)] = bias(n);
    ins.push_back(g.add_constant("bias", graph::f32_constant({nn}, bv)));
  }
  graph::Node* mm = g.add_node(ops::OpKind::MatMul, "mm", ins, {"y"});
  if (epilogue) mm->attrs.set("activation", std::string("Relu"));
  g.outputs = {mm->outputs[0]};
  return lower_for_gpu(g);
}

TEST(GpuMatmulRule, DefaultPointStagesTilesInSharedMemoryBetweenBarriers) {
  tir::IRModule mod = lowered_matmul();
  ASSERT_EQ(mod.kernels.size(), 1u);
  std::string trace;
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0, &trace);
  EXPECT_NE(trace.find("cache_read"), std::string::npos) << trace;
  driver::run_loop_passes(mod, /*gpu=*/true);
  auto fns = codegen::split_device_functions(mod.kernels[0], 0);
  ASSERT_EQ(fns.size(), 1u);
  const codegen::DeviceFunction& f = fns[0];
  // Defaults: 2 x 2 per thread, 16 x 16 threads by the sizes; 2 x 2 x 2 blocks are fewer
  // than the 64 the rule aims for, so 1 x 1 per thread: 16 x 16 tiles, 2 x 3 x 3 blocks, slabs
  // of 16 along k.
  EXPECT_EQ(f.block, (std::array<uint32_t, 3>{16, 16, 1}));
  EXPECT_EQ(f.grid, (std::array<uint32_t, 3>{2 * 3 * 3, 1, 1}));
  // The two slabs, double-buffered (tests/driver/double_buffer_test.cpp): two sets.
  ASSERT_EQ(f.shared.size(), 4u);
  std::multiset<int64_t> sizes;
  for (const tir::Buffer& b : f.shared) {
    std::optional<int64_t> n = codegen::constant_elements(*b.get());
    ASSERT_TRUE(n.has_value());
    sizes.insert(*n);
  }
  EXPECT_EQ(sizes, (std::multiset<int64_t>{16 * 16, 16 * 16, 16 * 16, 16 * 16}));
  EXPECT_NE(trace.find("double_buffer"), std::string::npos) << trace;
}

// Double-buffered slabs (eight of 16 along k: three pairs in the loop, the last pair after it):
// one barrier per slab inside the loop,
// where a single set of slabs needs two (one before the copy, one before the reads).
TEST(GpuMatmulRule, DoubleBufferedSlabsNeedOneBarrierPerSlab) {
  tir::IRModule mod = lowered_matmul(1, 64, 128, 64);
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0);
  driver::run_loop_passes(mod, /*gpu=*/true);
  auto fns = codegen::split_device_functions(mod.kernels[0], 0);
  ASSERT_EQ(fns.size(), 1u);
  struct Counter : tir::IRVisitor {
    const std::unordered_set<const tir::StmtNode*>* syncs = nullptr;
    int64_t pairs = 0;
    size_t in_loop = 0, depth = 0;
    void visit_stmt(const tir::Stmt& s) override {
      in_loop += depth > 0 && syncs->count(s.get()) > 0;
      tir::IRVisitor::visit_stmt(s);
    }
    void visit_For(const tir::For* op, const tir::Stmt& s) override {
      const bool pair = op->loop_var.name().ends_with("_pair");
      if (pair) {
        EXPECT_TRUE(tir::is_const_int(op->extent, &pairs));
      }
      depth += pair;
      tir::IRVisitor::visit_For(op, s);
      depth -= pair;
    }
  } counter;
  counter.syncs = &fns[0].sync_before;
  counter.visit(fns[0].body);
  EXPECT_EQ(counter.pairs, 3);
  EXPECT_EQ(counter.in_loop, 2u);  // per pair of slabs
  // In all: those two (the one at the top of the loop also orders the first slabs' copies before
  // their reads, so none goes before the loop), then before the last slab's copy and its reads.
  EXPECT_EQ(fns[0].sync_before.size(), 4u);
  // OpenCL adds one after a loop with barriers (PoCL), which the next planned one does not repeat.
  std::string cl = codegen::print_opencl(fns);
  size_t barriers = 0;
  for (size_t at = cl.find("barrier("); at != std::string::npos; at = cl.find("barrier(", at + 1))
    ++barriers;
  EXPECT_EQ(barriers, 4u) << cl;
}

// One row (decode-style): the threads all along the columns, one block of 256 per 256 columns,
// and only the row's slab staged (B's elements are each read once).
TEST(GpuMatmulRule, OneRowProductsSpreadTheThreadsAlongTheColumns) {
  tir::IRModule mod = lowered_matmul(1, 1, 64, 300);
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0);
  driver::run_loop_passes(mod, /*gpu=*/true);
  auto fns = codegen::split_device_functions(mod.kernels[0], 0);
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0].block, (std::array<uint32_t, 3>{256, 1, 1}));
  EXPECT_EQ(fns[0].grid, (std::array<uint32_t, 3>{2, 1, 1}));
  ASSERT_EQ(fns[0].shared.size(), 2u);  // double-buffered
  EXPECT_EQ(fns[0].shared[0]->name, "x_shared");
  EXPECT_EQ(fns[0].shared[1]->name, "x_shared_1");
}

// Points `first`..`last` of the rule's space for a b x m x k x n product (with `epilogue`, the
// fused bias and Relu): within the thread budget, built for OpenCL, run, compared with the
// product in float64; returns how many distinct traces they had.
size_t check_points(int64_t b, int64_t m, int64_t k, int64_t n, bool epilogue, uint64_t first,
                    uint64_t last) {
  std::vector<float> x(size_t(b * m * k));
  for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
  std::set<std::string> traces;
  std::filesystem::path dir = temp_dir("gpu_matmul");
  for (uint64_t seed = first; seed <= last; ++seed) {
    tir::IRModule mod = lowered_matmul(b, m, k, n, epilogue);
    std::string trace;
    mod.kernels[0] = gpu_scheduled(mod.kernels[0], seed, &trace);
    traces.insert(trace);
    driver::run_loop_passes(mod, /*gpu=*/true);
    for (const auto& f : codegen::split_device_functions(mod.kernels[0], 0))
      EXPECT_LE(f.block[0] * f.block[1] * f.block[2], 256u) << trace;
    std::string so = (dir / (std::to_string(m) + "_" + std::to_string(seed) + ".so")).string();
    auto out = run_on_opencl(mod, so, {x});
    if (out.size() != 1) return 0;
    for (int64_t r = 0; r < b * m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        double want = epilogue ? bias(c) : 0.0;
        for (int64_t i = 0; i < k; ++i) want += double(x[size_t(r * k + i)]) * weight(i, c);
        if (epilogue) want = std::max(0.0, want);
        EXPECT_NEAR(out[0][size_t(r * n + c)], want, 1e-4) << r << "," << c << "\n" << trace;
        if (::testing::Test::HasFailure()) return 0;
      }
  }
  return traces.size();
}

// Where the block's threads cover a slab in whole runs of 4 floats, the default copies them as
// vectors (OpenCL vload4 / vstore4), and the product still matches.
TEST(GpuMatmulRule, SlabsCoveredInWholeRunsAreCopiedAsVectors) {
  // (512 x 512: 64 blocks of 16 x 16 threads with 4 x 4 each; slabs of 64 x 16 and 16 x 64.)
  tir::IRModule mod = lowered_matmul(1, 512, 32, 512);
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0);
  driver::run_loop_passes(mod, /*gpu=*/true);
  std::string cl = codegen::print_opencl(codegen::split_device_functions(mod.kernels[0], 0));
  EXPECT_NE(cl.find("vstore4(vload4(0, &"), std::string::npos) << cl;
  EXPECT_GE(check_points(1, 512, 32, 512, false, 0, 0), 1u);
}

// Random points of the batched product.
TEST(GpuMatmulRule, RandomPointsRunOnOpenClAndMatchTheProduct) {
  EXPECT_GE(check_points(kB, kM, kK, kN, false, 1, 6), 4u);  // the points differ
}

// A one-row product with a long k (a GEMV): k split across 8 rows of threads, 32 columns per
// block, the partial sums combined across the rows (a tree over shared memory), and the
// write-back and the fused epilogue on the first row of threads only.
TEST(GpuMatmulRule, LongOneRowProductsSplitKAcrossRowsOfThreads) {
  tir::IRModule mod = lowered_matmul(1, 1, 768, 300, /*epilogue=*/true);
  std::string trace;
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0, &trace);
  EXPECT_NE(trace.find("rfactor"), std::string::npos) << trace;
  driver::run_loop_passes(mod, /*gpu=*/true);
  auto fns = codegen::split_device_functions(mod.kernels[0], 0);
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_EQ(fns[0].block, (std::array<uint32_t, 3>{32, 8, 1}));
  EXPECT_EQ(fns[0].grid, (std::array<uint32_t, 3>{10, 1, 1}));  // 300 columns / 32
  ASSERT_EQ(fns[0].shared.size(), 1u);  // the tree across the rows of threads
  EXPECT_EQ(codegen::constant_elements(*fns[0].shared[0].get()), 32 * 8);
  EXPECT_EQ(fns[0].sync_before.size(), 4u);  // three folds (8 -> 1) and the read
  // The write-back and the in-place epilogue only on the first row of threads: with every row,
  // a row could apply the epilogue again to what another wrote (the bias is the product's init). (PoCL runs a work-group's work-items
  // one after another, so a run would not show that race: the structure is checked here.)
  std::string cl = codegen::print_opencl(fns);
  size_t first_row = cl.find("if ((ty < 1))");
  ASSERT_NE(first_row, std::string::npos) << cl;
  EXPECT_NE(cl.find("ingot_maxf(y[", first_row), std::string::npos) << cl;  // the Relu under it
}

// The default and random points of one-row products (a batch of 3 rows, k of 300) with the
// fused bias and Relu.
TEST(GpuMatmulRule, RandomOneRowPointsRunOnOpenClAndMatchTheProduct) {
  EXPECT_GE(check_points(3, 1, 300, 45, true, 0, 6), 4u);  // the points differ
}

}  // namespace
}  // namespace ingot::testing
