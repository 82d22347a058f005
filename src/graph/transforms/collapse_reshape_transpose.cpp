// collapse_reshape_transpose (see collapse_reshape_transpose.h).
#include "graph/transforms/collapse_reshape_transpose.h"

#include <algorithm>
#include <cstring>

namespace ingot::graph {

namespace {

using ops::OpKind;

bool reshape_like(const Node* n) {
  return n != nullptr && (n->op == OpKind::Reshape || n->op == OpKind::Flatten ||
                          n->op == OpKind::Squeeze || n->op == OpKind::Unsqueeze);
}

bool is_graph_output(const Graph& g, const Value* v) {
  return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t d = 0; d < perm.size(); ++d)
    if (perm[d] != int64_t(d)) return false;
  return true;
}

// A static shape with no zero dims (a Reshape to it needs no allowzero).
bool plain_static(const TensorType& t) {
  if (!t.is_static()) return false;
  for (const Dim& d : t.shape)
    if (d.value == 0) return false;
  return true;
}

// `n` becomes Reshape(x, n's static output shape), keeping its output value.
void make_reshape(Graph& g, Node* n, Value* x) {
  std::vector<int64_t> dims = n->outputs[0]->type.static_shape();
  std::vector<uint8_t> bytes(dims.size() * sizeof(int64_t));
  if (!dims.empty()) std::memcpy(bytes.data(), dims.data(), bytes.size());
  Value* shape = g.add_constant(
      n->name + "_shape",
      std::make_shared<Tensor>(DType::kI64, std::vector<int64_t>{int64_t(dims.size())},
                               std::move(bytes)));
  if (n->op != OpKind::Reshape) n->fused.push_back(ops::op_name(n->op));
  n->op = OpKind::Reshape;
  n->attrs = Attrs();
  n->attrs.set("allowzero", int64_t(0));
  n->inputs = {x, shape};
}

// Drops `n` (one input x, one output of x's type) by reading x instead; false if its output
// is a graph output.
bool bypass(Graph& g, Node* n) {
  Value* out = n->outputs[0];
  if (is_graph_output(g, out)) return false;
  g.replace_all_uses(out, n->inputs[0]);
  return true;
}

// One rewrite of `n`; true when the graph changed (`removed`: n no longer computes anything).
bool collapse_one(Graph& g, Node* n, bool* removed) {
  Value* y = n->outputs[0];
  Value* x = n->inputs.empty() ? nullptr : n->inputs[0];
  if (x == nullptr) return false;
  Node* p = x->producer;
  if (n->op == OpKind::Transpose) {
    std::vector<int64_t> perm = n->attrs.get_ints("perm");
    if (p != nullptr && p->op == OpKind::Transpose) {
      std::vector<int64_t> inner = p->attrs.get_ints("perm"), composed;
      for (int64_t d : perm) composed.push_back(inner[size_t(d)]);
      n->inputs[0] = p->inputs[0];
      n->attrs.set("perm", composed);
      n->fused.push_back("Transpose");
      return true;
    }
    if (is_identity(perm)) return *removed = bypass(g, n);
    if (!plain_static(x->type)) return false;
    std::vector<int64_t> moved;  // the input dims of extent > 1, in output order
    for (int64_t d : perm)
      if (x->type.shape[size_t(d)].value != 1) moved.push_back(d);
    if (!std::is_sorted(moved.begin(), moved.end())) return false;
    make_reshape(g, n, x);
    return true;
  }
  if (!reshape_like(n) || !plain_static(y->type)) return false;
  if (x->type == y->type) return *removed = bypass(g, n);
  if (reshape_like(p)) {
    make_reshape(g, n, p->inputs[0]);
    return true;
  }
  return false;
}

}  // namespace

void collapse_reshape_transpose(Graph& g) {
  std::vector<Node*> nodes;
  for (const auto& n : g.nodes()) nodes.push_back(n.get());
  for (Node* n : nodes) {
    bool removed = false;
    while (!removed && collapse_one(g, n, &removed)) {
    }
  }
}

}  // namespace ingot::graph
