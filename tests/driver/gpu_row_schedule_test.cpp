// The GPU row rule (schedule/rules/gpu_row_reduction.h) on lowered Softmax, ReduceMax,
// ReduceMin, ReduceMean and LayerNormalization rows, 300 long (a partial last stride) and 40
// long (fewer elements than some points' threads): the default point runs one thread block of
// 128 threads per 300-long row, each reduction a tree over shared memory (one scratch array per
// reduction, thread_reduction.h); random points of the design space (threads per row, or one
// thread per row), built for OpenCL and run on the runtime's OpenCL device (PoCL here), match
// the closed forms computed in float64 in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "codegen/gpu/device_lowering.h"
#include "driver/loop_passes.h"
#include "gpu_schedule_util.h"
#include "graph/transforms/rewrite_util.h"
#include "tir/op.h"

namespace ingot::testing {
namespace {

constexpr int64_t kRows = 6;

float input(int64_t i) {
  return float((i * 37) % 101) * 0.05f - 2.5f;
}
float scale(int64_t k) {
  return float(k % 7) * 0.25f - 0.5f;
}

// Outputs: Softmax, ReduceMax, ReduceMin, ReduceMean (over the row) and LayerNormalization
// (scale only) of x[kRows, len], one kernel each.
tir::IRModule lowered_rows(int64_t len) {
  graph::Graph g;
  graph::TensorType t{graph::DType::kF32, {graph::Dim::fixed(kRows), graph::Dim::fixed(len)}};
  graph::Value* x = g.add_value("x", t);
  g.inputs = {x};
  std::vector<float> s(static_cast<size_t>(len));
  for (int64_t k = 0; k < len; ++k) s[size_t(k)] = scale(k);
  graph::Value* sv = g.add_constant("s", graph::f32_constant({len}, s));
  auto add = [&](ops::OpKind op, const std::string& name, std::vector<graph::Value*> in,
                 graph::Attrs attrs) {
    graph::Node* n = g.add_node(op, name, std::move(in), {name + "_y"});
    n->attrs = std::move(attrs);
    g.outputs.push_back(n->outputs[0]);
  };
  graph::Attrs last, reduce;
  last.set("axis", int64_t(-1));
  reduce.set("axes", std::vector<int64_t>{1});
  reduce.set("keepdims", int64_t(0));
  add(ops::OpKind::Softmax, "softmax", {x}, last);
  add(ops::OpKind::ReduceMax, "max", {x}, reduce);
  add(ops::OpKind::ReduceMin, "min", {x}, reduce);
  add(ops::OpKind::ReduceMean, "mean", {x}, reduce);
  add(ops::OpKind::LayerNormalization, "norm", {x, sv}, last);
  return lower_for_gpu(g);
}

TEST(GpuRowRule, DefaultPointRunsABlockPerRowWithATreePerReduction) {
  tir::IRModule mod = lowered_rows(300);
  ASSERT_EQ(mod.kernels.size(), 5u);
  for (auto& k : mod.kernels) {
    std::string trace;
    k = gpu_scheduled(k, 0, &trace);
    EXPECT_NE(trace.find("rfactor"), std::string::npos) << trace;
  }
  driver::run_loop_passes(mod, /*gpu=*/true);
  // Softmax and LayerNormalization reduce twice, the Reduce* ops once.
  const size_t trees[] = {2, 1, 1, 1, 2};
  for (size_t i = 0; i < mod.kernels.size(); ++i) {
    auto fns = codegen::split_device_functions(mod.kernels[i], int(i));
    ASSERT_EQ(fns.size(), 1u) << mod.kernels[i].name;
    const codegen::DeviceFunction& f = fns[0];
    EXPECT_EQ(f.grid, (std::array<uint32_t, 3>{kRows, 1, 1})) << f.name;
    // 300 elements: 128 threads leave each at least two.
    EXPECT_EQ(f.block, (std::array<uint32_t, 3>{128, 1, 1})) << f.name;
    ASSERT_EQ(f.shared.size(), trees[i]) << f.name;
    for (const tir::Buffer& b : f.shared) EXPECT_EQ(codegen::constant_elements(*b.get()), 128);
    // Per tree: before each of its 7 halvings and before the result is read.
    EXPECT_EQ(f.sync_before.size(), 8 * trees[i]) << f.name;
  }
}

// The closed forms, in float64.
struct Expected {
  std::vector<double> softmax, max, min, mean, norm;
};

Expected expected(const std::vector<float>& x, int64_t len) {
  Expected e;
  for (int64_t r = 0; r < kRows; ++r) {
    const float* row = x.data() + r * len;
    double mx = *std::max_element(row, row + len), mn = *std::min_element(row, row + len);
    double sum = 0, mean = 0, var = 0;
    for (int64_t k = 0; k < len; ++k) sum += std::exp(row[k] - mx), mean += row[k];
    mean /= double(len);
    for (int64_t k = 0; k < len; ++k) var += (row[k] - mean) * (row[k] - mean);
    var /= double(len);
    for (int64_t k = 0; k < len; ++k) {
      e.softmax.push_back(std::exp(row[k] - mx) / sum);
      e.norm.push_back((row[k] - mean) / std::sqrt(var + 1e-5) * scale(k));
    }
    e.max.push_back(mx);
    e.min.push_back(mn);
    e.mean.push_back(mean);
  }
  return e;
}

void run_and_check(const tir::IRModule& mod, const std::string& so, int64_t len,
                   const std::string& trace) {
  std::vector<float> x(size_t(kRows * len));
  for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
  auto out = run_on_opencl(mod, so, {x}, 5);
  ASSERT_EQ(out.size(), 5u);
  Expected e = expected(x, len);
  const std::vector<double>* want[] = {&e.softmax, &e.max, &e.min, &e.mean, &e.norm};
  for (size_t o = 0; o < 5; ++o) {
    ASSERT_EQ(out[o].size(), want[o]->size());
    for (size_t i = 0; i < want[o]->size(); ++i)
      ASSERT_NEAR(out[o][i], (*want[o])[i], 1e-5 * std::max(1.0, std::abs((*want[o])[i])))
          << "output " << o << " element " << i << "\n"
          << trace;
  }
}

TEST(GpuRowRule, RandomPointsRunOnOpenClAndMatchTheClosedForms) {
  std::filesystem::path dir = temp_dir("gpu_rows");
  std::set<std::string> traces;
  for (int64_t len : {300, 40}) {
    for (uint64_t seed = 0; seed <= 4; ++seed) {
      tir::IRModule mod = lowered_rows(len);
      std::string trace;
      for (auto& k : mod.kernels) k = gpu_scheduled(k, seed, &trace);
      traces.insert(trace);
      driver::run_loop_passes(mod, /*gpu=*/true);
      run_and_check(
          mod, (dir / ("r" + std::to_string(len) + "_" + std::to_string(seed) + ".so")).string(),
          len, trace);
    }
  }
  EXPECT_GE(traces.size(), 4u);  // the points differ (of 5 thread counts, 0 included)
}

}  // namespace
}  // namespace ingot::testing
