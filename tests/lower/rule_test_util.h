// Test helpers for compute rules: build a node, run its rule on host tensors through the loop-IR
// interpreter, deterministic pseudo-random data and an elementwise comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/tir_interpreter.h"
#include "graph/graph.h"
#include "tir/module.h"

namespace ingot::testing {

graph::Node make_node(ops::OpKind op, graph::Attrs attrs = {});

// Values in [lo, hi) from a fixed-seed generator.
std::vector<double> random_values(int64_t n, double lo = -1.0, double hi = 1.0, uint32_t seed = 1);
HostTensor random_f32(std::vector<int64_t> shape, uint32_t seed = 1, double lo = -1, double hi = 1);

// Runs the op's compute rule; inputs may hold nullptr for omitted optional inputs. Returns the
// outputs, which have the given dtypes and shapes.
std::vector<HostTensor> run_rule(const graph::Node& node,
                                 const std::vector<const HostTensor*>& inputs,
                                 const std::vector<HostTensor>& output_templates);
HostTensor run_rule1(const graph::Node& node, const std::vector<const HostTensor*>& inputs,
                     tir::DataType dtype, std::vector<int64_t> out_shape);

// Row-major flat offset.
int64_t flat_index(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx);

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want,
                     double tol = 1e-5);

// A static float32 tensor type.
graph::TensorType f32_type(std::vector<int64_t> shape);

// A small graph under construction: float32 inputs, constants and single-output op nodes (each
// output named after its node).
struct TestNet {
  graph::Graph g;
  graph::Value* input(const std::string& name, std::vector<int64_t> shape);
  graph::Value* constant(const std::string& name, std::vector<int64_t> shape,
                         const std::vector<float>& values);
  graph::Value* op(ops::OpKind k, const std::string& name, std::vector<graph::Value*> ins,
                   graph::Attrs a = {});
};

// A 2-D pooling window and its padding (top, left, bottom, right), ceil_mode.
struct PoolParams {
  int64_t h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
  bool ceil;
};
// Pooled extent of one dim, from the ONNX definition (with ceil_mode, a last window that would
// start in the end padding is dropped).
int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1,
                         bool ceil);
// The pooling node attributes of `p` (kernel_shape, strides, dilations, pads, ceil_mode).
graph::Attrs pool_attrs(const PoolParams& p);

// The entry's call of the kernel named `name` (a test failure, and an empty call, when none).
const tir::KernelCall& kernel_call(const tir::IRModule& m, const std::string& name);

}  // namespace ingot::testing
