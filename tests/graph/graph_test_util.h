// Helpers for graph tests: building types, constants and single-node graphs by hand.
#pragma once

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/transforms/infer_types.h"
#include "support/error.h"

namespace ingot::graph::testing {

// T(DType::kF32, {"N", 3, 224}) style shapes: ints are static dims, strings symbols.
struct D {
  Dim dim;
  D(int v) : dim(Dim::fixed(v)) {}
  D(const char* s) : dim(Dim::named(s)) {}
};

inline TensorType T(DType dt, std::initializer_list<D> dims) {
  TensorType t{dt, {}};
  for (const D& d : dims) t.shape.push_back(d.dim);
  return t;
}
inline TensorType F32(std::initializer_list<D> dims) {
  return T(DType::kF32, dims);
}

// How many nodes of `op` the graph has.
inline int count_ops(const Graph& g, ops::OpKind op) {
  int c = 0;
  for (const auto& n : g.nodes()) c += n->op == op;
  return c;
}

inline TensorPtr i64_tensor(std::vector<int64_t> shape, const std::vector<int64_t>& vals) {
  std::vector<uint8_t> bytes(vals.size() * 8);
  std::memcpy(bytes.data(), vals.data(), bytes.size());
  return std::make_shared<Tensor>(DType::kI64, std::move(shape), std::move(bytes));
}
inline TensorPtr f32_tensor(std::vector<int64_t> shape, const std::vector<float>& vals) {
  std::vector<uint8_t> bytes(vals.size() * 4);
  std::memcpy(bytes.data(), vals.data(), bytes.size());
  return std::make_shared<Tensor>(DType::kF32, std::move(shape), std::move(bytes));
}
inline TensorPtr i64_vector(const std::vector<int64_t>& vals) {
  return i64_tensor({int64_t(vals.size())}, vals);
}
// A float32 constant of `shape` with every element `value` (convolution weights of pass tests).
inline Value* filled_constant(Graph& g, const std::string& name, std::vector<int64_t> shape,
                              float value) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return g.add_constant(name, f32_tensor(std::move(shape), std::vector<float>(size_t(n), value)));
}

// A 2-D Conv node of a k x k kernel, `group` groups and `pad` on every side, its output named
// after it (graph pass tests).
inline Node* square_conv(Graph& g, const std::string& name, std::vector<Value*> ins, int64_t k,
                         int64_t group = 1, int64_t pad = 0) {
  Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("group", group);
  a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  return g.add_node(ops::OpKind::Conv, name, std::move(ins), {name}, a);
}

// A graph with the given typed inputs, one node of `op`, and its outputs as graph outputs.
struct OneNode {
  Graph g;
  Node* node = nullptr;
  std::vector<Value*> ins;

  OneNode(ops::OpKind op, std::vector<TensorType> inputs, Attrs attrs = {}, int num_outputs = 1,
          const std::string& name = "n") {
    for (size_t i = 0; i < inputs.size(); ++i) {
      ins.push_back(g.add_value("in" + std::to_string(i), inputs[i]));
      g.inputs.push_back(ins.back());
    }
    std::vector<std::string> outs;
    for (int i = 0; i < num_outputs; ++i) outs.push_back("out" + std::to_string(i));
    node = g.add_node(op, name, ins, outs, std::move(attrs));
    g.outputs = node->outputs;
  }
  // Run inference and return graph output i's type (read from the graph: shape-value
  // propagation may have replaced the node by constants).
  TensorType infer(int i = 0) {
    infer_types(g);
    return g.outputs[i]->type;
  }
};

// The message of the UserError that `f` throws ("" when it throws none).
template <typename F>
std::string user_error(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ingot::graph::testing
