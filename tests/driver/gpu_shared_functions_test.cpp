// Device functions that print the same up to their own names are compiled once
// (lower_device_code): a chain of three MatMuls, the first two of one shape over different
// weights and the third of another, gives two device functions, the first two launches sharing
// one with their own arguments; built for OpenCL and run on the runtime's OpenCL device (PoCL
// here), the chain matches a float64 product computed in the test; the CUDA program shares the
// same way (printed only, no NVRTC needed).
#include <gtest/gtest.h>

#include <cmath>

#include "codegen/gpu/device_lowering.h"
#include "codegen/gpu/device_printer.h"
#include "driver/loop_passes.h"
#include "gpu_schedule_util.h"
#include "graph/transforms/rewrite_util.h"

namespace ingot::testing {
namespace {

constexpr int64_t kRows = 9, kWide = 40, kOut = 24;

float weight(int layer, int64_t k, int64_t n) {
  return float((k * 7 + n * 3 + layer * 5) % 11) * 0.0625f - 0.3f;
}
float input(int64_t i) {
  return float((i * 37) % 101) * 0.02f - 1.0f;
}

// x[9,40] @ W1[40,40] @ W2[40,40] @ W3[40,24]: three kernels, the first two of the same shape.
tir::IRModule lowered_chain() {
  graph::Graph g;
  graph::TensorType t{graph::DType::kF32, {graph::Dim::fixed(kRows), graph::Dim::fixed(kWide)}};
  graph::Value* v = g.add_value("x", t);
  g.inputs = {v};
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t n = layer == 2 ? kOut : kWide;
    std::vector<float> w(size_t(kWide * n));
    for (int64_t k = 0; k < kWide; ++k)
      for (int64_t j = 0; j < n; ++j) w[size_t(k * n + j)] = weight(layer, k, j);
    const std::string name = "mm" + std::to_string(layer);
    graph::Value* wv = g.add_constant(name + "_w", graph::f32_constant({kWide, n}, w));
    v = g.add_node(ops::OpKind::MatMul, name, {v, wv}, {name + "_y"})->outputs[0];
  }
  g.outputs = {v};
  tir::IRModule mod = lower_for_gpu(g);
  for (auto& k : mod.kernels) k = gpu_scheduled(k, 0);
  driver::run_loop_passes(mod, /*gpu=*/true);
  return mod;
}

TEST(GpuSharedFunctions, EqualKernelsShareOneFunctionWithTheirOwnArguments) {
  tir::IRModule mod = lowered_chain();
  ASSERT_EQ(mod.kernels.size(), 3u);
  for (const char* target : {"opencl", "cuda"}) {
    SCOPED_TRACE(target);
    codegen::Target t = codegen::Target::parse(target);
    // What each kernel would be on its own: one function each, the first two printing the same
    // up to names, the third not.
    std::vector<std::string> canonical;
    for (size_t k = 0; k < 3; ++k) {
      auto fns = codegen::split_device_functions(mod.kernels[k], int(k));
      ASSERT_EQ(fns.size(), 1u);
      canonical.push_back(codegen::print_canonical(fns[0], t.kind == codegen::Target::kCUDA));
    }
    EXPECT_EQ(canonical[0], canonical[1]);
    EXPECT_NE(canonical[0], canonical[2]);
    if (t.kind == codegen::Target::kCUDA) continue;  // the CUDA program needs NVRTC
    codegen::DeviceCode code = codegen::lower_device_code(mod, t);
    ASSERT_EQ(code.launches.size(), 3u);
    ASSERT_EQ(code.functions.size(), 2u) << code.source;
    EXPECT_EQ(code.launches[0].function, code.launches[1].function);
    EXPECT_NE(code.launches[0].function, code.launches[2].function);
    for (int l = 0; l < 3; ++l) EXPECT_EQ(code.launches[size_t(l)].kernel, l);
    // Other weights, another output: the launches' arguments differ.
    const auto& a0 = code.launches[0].args;
    const auto& a1 = code.launches[1].args;
    ASSERT_EQ(a0.size(), a1.size());
    bool differ = false;
    for (size_t i = 0; i < a0.size(); ++i)
      differ |= a0[i].kind != a1[i].kind || a0[i].value != a1[i].value;
    EXPECT_TRUE(differ);
    // The program prints the shared function once.
    EXPECT_EQ(code.source.find("__kernel void " + code.functions[1] + "("),
              code.source.rfind("__kernel void " + code.functions[1] + "("));
  }
}

TEST(GpuSharedFunctions, TheSharedFunctionRunsEachLaunchOnItsOwnBuffers) {
  tir::IRModule mod = lowered_chain();
  std::vector<float> x(size_t(kRows * kWide));
  for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
  auto out = run_on_opencl(mod, (temp_dir("gpu_shared") / "chain.so").string(), {x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size(), size_t(kRows * kOut));
  // The chain in float64.
  std::vector<double> a(x.begin(), x.end());
  for (int layer = 0; layer < 3; ++layer) {
    const int64_t n = layer == 2 ? kOut : kWide;
    std::vector<double> next(size_t(kRows * n), 0.0);
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < kWide; ++k)
          next[size_t(r * n + j)] += a[size_t(r * kWide + k)] * weight(layer, k, j);
    a = std::move(next);
  }
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(out[0][i], a[i], 1e-4 * std::max(1.0, std::abs(a[i]))) << "element " << i;
}

}  // namespace
}  // namespace ingot::testing
