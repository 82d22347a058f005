// Test helpers for compute rules (see rule_test_util.h).
#include "rule_test_util.h"

#include <cmath>

#include "graph/transforms/rewrite_util.h"
#include "lower/compute/compute.h"

namespace ingot::testing {

graph::Node make_node(ops::OpKind op, graph::Attrs attrs) {
  graph::Node n;
  n.op = op;
  n.name = "n";
  n.attrs = std::move(attrs);
  return n;
}

std::vector<double> random_values(int64_t n, double lo, double hi, uint32_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = lo + (hi - lo) * double(s >> 8) / double(1u << 24);
  }
  return v;
}

HostTensor random_f32(std::vector<int64_t> shape, uint32_t seed, double lo, double hi) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return HostTensor(tir::DataType::f32(), shape, random_values(n, lo, hi, seed));
}

std::vector<HostTensor> run_rule(const graph::Node& node,
                                 const std::vector<const HostTensor*>& inputs,
                                 const std::vector<HostTensor>& output_templates) {
  std::vector<tir::Buffer> ins, outs;
  std::vector<HostTensor> in_copies;
  in_copies.reserve(inputs.size());
  TirInterpreter interp;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) {
      ins.emplace_back();
      continue;
    }
    in_copies.push_back(*inputs[i]);
    HostTensor& t = in_copies.back();
    ins.push_back(tir::Buffer::make("in" + std::to_string(i), t.dtype, t.shape));
    interp.bind(ins.back(), t.data(), int64_t(t.bytes.size()));
  }
  std::vector<HostTensor> results = output_templates;
  for (size_t i = 0; i < results.size(); ++i) {
    HostTensor& t = results[i];
    std::fill(t.bytes.begin(), t.bytes.end(), 0xFF);  // NaN poison: every element must be written
    outs.push_back(tir::Buffer::make("out" + std::to_string(i), t.dtype, t.shape));
    interp.bind(outs.back(), t.data(), int64_t(t.bytes.size()));
  }
  tir::Stmt body = lower::compute_rule(node.op)(node, ins, outs);
  interp.exec(body);
  // Inputs are read-only.
  size_t k = 0;
  for (const HostTensor* in : inputs) {
    if (!in) continue;
    EXPECT_EQ(in_copies[k].bytes, in->bytes) << "input " << k << " was modified";
    ++k;
  }
  return results;
}

HostTensor run_rule1(const graph::Node& node, const std::vector<const HostTensor*>& inputs,
                     tir::DataType dtype, std::vector<int64_t> out_shape) {
  return run_rule(node, inputs, {HostTensor(dtype, std::move(out_shape))})[0];
}

int64_t flat_index(const std::vector<int64_t>& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    double scale = std::max(1.0, std::fabs(want[i]));
    EXPECT_NEAR(got[i], want[i], tol * scale) << "at flat index " << i;
  }
}

graph::TensorType f32_type(std::vector<int64_t> shape) {
  graph::TensorType t{graph::DType::kF32, {}};
  for (int64_t d : shape) t.shape.push_back(graph::Dim::fixed(d));
  return t;
}

const tir::KernelCall& kernel_call(const tir::IRModule& m, const std::string& name) {
  for (const tir::KernelCall& c : m.entry)
    if (m.kernels[size_t(c.kernel)].name == name) return c;
  ADD_FAILURE() << "no kernel " << name;
  static tir::KernelCall none;
  return none;
}

graph::Value* TestNet::input(const std::string& name, std::vector<int64_t> shape) {
  graph::Value* v = g.add_value(name, f32_type(std::move(shape)));
  g.inputs.push_back(v);
  return v;
}

graph::Value* TestNet::constant(const std::string& name, std::vector<int64_t> shape,
                                const std::vector<float>& values) {
  return g.add_constant(name, graph::f32_constant(std::move(shape), values));
}

graph::Value* TestNet::op(ops::OpKind k, const std::string& name, std::vector<graph::Value*> ins,
                          graph::Attrs a) {
  return g.add_node(k, name, std::move(ins), {name}, std::move(a))->outputs[0];
}

int64_t pool_output_size(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0, int64_t p1,
                         bool ceil) {
  double v = double(in + p0 + p1 - ((k - 1) * d + 1)) / double(s);
  int64_t o = int64_t(ceil ? std::ceil(v) : std::floor(v)) + 1;
  if (ceil && (o - 1) * s >= in + p0) --o;  // the last window starts inside the input or pad
  return o;
}

graph::Attrs pool_attrs(const PoolParams& p) {
  graph::Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{p.kh, p.kw});
  a.set("strides", std::vector<int64_t>{p.sh, p.sw});
  a.set("dilations", std::vector<int64_t>{p.dh, p.dw});
  a.set("pads", std::vector<int64_t>{p.pt, p.pl, p.pb, p.pr});
  a.set("ceil_mode", int64_t(p.ceil));
  return a;
}

}  // namespace ingot::testing
