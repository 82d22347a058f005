// Helpers of the GPU rule tests (gpu_*_schedule_test.cpp): a graph lowered for a GPU target, a
// kernel scheduled by the GPU rules at a point of their design space, and a module built for
// OpenCL and run on the runtime's OpenCL device (PoCL here).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "compiled_model.h"
#include "graph/transforms/infer_types.h"
#include "lower/lower_graph.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/gpu_injective.h"

namespace ingot::testing {

// The graph, its types inferred, lowered for a GPU target.
inline tir::IRModule lower_for_gpu(graph::Graph& g) {
  graph::infer_types(g);
  lower::LowerOptions options;
  options.product_blocks = true;
  options.wide_accumulators = true;
  return lower::lower_graph(g, options);
}

// The kernel scheduled by the GPU rules within 256 threads: the default point for seed 0, else
// a random point of their design space; the trace is appended to `trace`.
// With `tensor_cores`, as for CUDA from sm_80 (float16 products on the m16n8k16 instruction).
inline tir::PrimFunc gpu_scheduled(const tir::PrimFunc& f, uint64_t seed,
                                   std::string* trace = nullptr, bool tensor_cores = false) {
  schedule::Schedule s(f, seed);
  if (seed > 0) s.set_sampling_policy({.ignore_given = true});
  schedule::schedule_gpu_kernel(s, 256, tensor_cores);
  if (trace) *trace += s.trace().to_python_script();
  return schedule::scheduled_kernel(f, s);
}

// The module built for OpenCL into `so` and run once on `inputs` (each input's bytes, in
// order): the bytes of its first `outputs` outputs; empty, with a test failure, when a step fails.
inline std::vector<std::vector<uint8_t>> run_on_opencl_bytes(
    const tir::IRModule& mod, const std::string& so,
    const std::vector<std::vector<uint8_t>>& inputs, size_t outputs = 1) {
  codegen::build_shared_library(mod, codegen::Target::parse("opencl"), so);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  std::vector<std::vector<uint8_t>> out;
  bool ok = ingot_model_load(so.c_str(), &model) == INGOT_OK &&
            ingot_session_create(model, &session) == INGOT_OK;
  for (size_t i = 0; ok && i < inputs.size(); ++i)
    ok = ingot_session_set_input_copy(session, int(i), inputs[i].data(), inputs[i].size()) ==
         INGOT_OK;
  ok = ok && ingot_session_run(session) == INGOT_OK;
  for (size_t o = 0; ok && o < outputs; ++o) {
    DLTensor y;
    ok = ingot_session_output(session, int(o), &y) == INGOT_OK;
    if (!ok) break;
    size_t n = (size_t(y.dtype.bits) * y.dtype.lanes + 7) / 8;
    for (int d = 0; d < y.ndim; ++d) n *= size_t(y.shape[d]);
    const auto* data = static_cast<const uint8_t*>(y.data);
    out.emplace_back(data, data + n);
  }
  EXPECT_TRUE(ok) << so << ": " << ingot_last_error();
  if (session != nullptr) ingot_session_free(session);
  if (model != nullptr) ingot_model_free(model);
  return ok ? out : std::vector<std::vector<uint8_t>>{};
}

// The same with float32 inputs and outputs.
inline std::vector<std::vector<float>> run_on_opencl(const tir::IRModule& mod,
                                                     const std::string& so,
                                                     const std::vector<std::vector<float>>& inputs,
                                                     size_t outputs = 1) {
  std::vector<std::vector<uint8_t>> in;
  for (const auto& v : inputs) {
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    in.emplace_back(p, p + v.size() * sizeof(float));
  }
  std::vector<std::vector<float>> out;
  for (const auto& bytes : run_on_opencl_bytes(mod, so, in, outputs)) {
    std::vector<float> v(bytes.size() / sizeof(float));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace ingot::testing
