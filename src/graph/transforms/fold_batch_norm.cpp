// fold_batch_norm (see fold_batch_norm.h).
#include "graph/transforms/fold_batch_norm.h"

#include <cmath>

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

bool f32_constant_value(const Value* v) {
  return v != nullptr && v->is_constant() && v->type.dtype == DType::kF32;
}

// The BN that can fold into `conv`, or null.
Node* foldable_bn(const Graph& g, const Node& conv) {
  if (conv.op != ops::OpKind::Conv || conv.outputs[0]->type.dtype != DType::kF32) return nullptr;
  if (!f32_constant_value(conv.inputs[1])) return nullptr;
  if (conv.inputs.size() > 2 && conv.inputs[2] && !f32_constant_value(conv.inputs[2]))
    return nullptr;
  if (conv.inputs.size() > 3 || conv.attrs.has("activation")) return nullptr;  // already fused
  Node* bn = single_user(g, conv.outputs[0]);
  if (bn == nullptr || bn->op != ops::OpKind::BatchNormalization ||
      bn->inputs[0] != conv.outputs[0])
    return nullptr;
  for (size_t i = 1; i < 5; ++i)
    if (i >= bn->inputs.size() || !f32_constant_value(bn->inputs[i])) return nullptr;
  for (size_t i = 1; i < bn->outputs.size(); ++i)
    if (bn->outputs[i] && !g.users(bn->outputs[i]).empty()) return nullptr;
  return bn;
}

// An inference BN with constant parameters whose extra outputs are unused, or null.
bool affine_bn(const Graph& g, const Node& bn) {
  if (bn.op != ops::OpKind::BatchNormalization || bn.attrs.get_int("training_mode", 0) != 0)
    return false;
  const Value* x = bn.inputs[0];
  if (x == nullptr || x->type.dtype != DType::kF32 || x->type.rank() < 2 ||
      !x->type.shape[1].is_static())
    return false;
  for (size_t i = 1; i < 5; ++i)
    if (i >= bn.inputs.size() || !f32_constant_value(bn.inputs[i])) return false;
  for (size_t i = 1; i < bn.outputs.size(); ++i)
    if (bn.outputs[i] && !g.users(bn.outputs[i]).empty()) return false;
  return true;
}

// BN -> Mul(X, s) then Add(., B - mean * s); the BN node becomes the Add (keeping its output).
void decompose_bn(Graph& g, Node* bn) {
  Value* x = bn->inputs[0];
  int64_t c = x->type.shape[1].value;
  double eps = bn->attrs.get_float("epsilon", 1e-5);
  const float* scale = bn->inputs[1]->constant->data_as<float>();
  const float* shift = bn->inputs[2]->constant->data_as<float>();
  const float* mean = bn->inputs[3]->constant->data_as<float>();
  const float* var = bn->inputs[4]->constant->data_as<float>();
  std::vector<float> s(static_cast<size_t>(c)), b(static_cast<size_t>(c));
  for (int64_t k = 0; k < c; ++k) {
    double sk = double(scale[k]) / std::sqrt(double(var[k]) + eps);
    s[size_t(k)] = float(sk);
    b[size_t(k)] = float(double(shift[k]) - double(mean[k]) * sk);
  }
  std::vector<int64_t> shape(size_t(x->type.rank()), 1);
  shape[1] = c;
  std::string base = bn->outputs[0]->name;
  Value* sv = g.add_constant(base + "_bn_scale", f32_constant(shape, s));
  Value* bv = g.add_constant(base + "_bn_shift", f32_constant(shape, b));
  Node* mul = g.add_node(ops::OpKind::Mul, bn->name + "_scale", {x, sv}, {base + "_bn_scaled"});
  mul->opset = bn->opset;
  mul->outputs[0]->type = x->type;
  bn->op = ops::OpKind::Add;
  bn->attrs = Attrs{};
  bn->inputs = {mul->outputs[0], bv};
  bn->outputs.resize(1);
}

}  // namespace

void fold_batch_norm(Graph& g) {
  std::vector<std::pair<Node*, Node*>> pairs;
  for (const auto& n : g.nodes())
    if (Node* bn = foldable_bn(g, *n)) pairs.emplace_back(n.get(), bn);
  for (auto [conv, bn] : pairs) {
    const Tensor& w = *conv->inputs[1]->constant;
    int64_t oc = w.shape()[0], per_oc = w.num_elements() / oc;
    double eps = bn->attrs.get_float("epsilon", 1e-5);
    const float* scale = bn->inputs[1]->constant->data_as<float>();
    const float* shift = bn->inputs[2]->constant->data_as<float>();
    const float* mean = bn->inputs[3]->constant->data_as<float>();
    const float* var = bn->inputs[4]->constant->data_as<float>();
    const float* bias = conv->inputs.size() > 2 && conv->inputs[2]
                            ? conv->inputs[2]->constant->data_as<float>()
                            : nullptr;
    const float* wd = w.data_as<float>();
    std::vector<float> nw(static_cast<size_t>(w.num_elements()));
    std::vector<float> nb(static_cast<size_t>(oc));
    for (int64_t o = 0; o < oc; ++o) {
      double s = double(scale[o]) / std::sqrt(double(var[o]) + eps);
      for (int64_t i = 0; i < per_oc; ++i)
        nw[size_t(o * per_oc + i)] = float(double(wd[o * per_oc + i]) * s);
      nb[size_t(o)] =
          float(((bias ? double(bias[o]) : 0.0) - double(mean[o])) * s + double(shift[o]));
    }
    std::string base = bn->outputs[0]->name;
    Value* new_w = g.add_constant(base + "_folded_weight", f32_constant(w.shape(), nw));
    Value* new_b = g.add_constant(base + "_folded_bias", f32_constant({oc}, nb));
    conv->inputs.resize(3);
    conv->inputs[1] = new_w;
    conv->inputs[2] = new_b;
    absorb_consumer(g, conv, bn);
  }
  std::vector<Node*> rest;
  for (const auto& n : g.nodes())
    if (affine_bn(g, *n)) rest.push_back(n.get());
  for (Node* bn : rest) decompose_bn(g, bn);
  if (!rest.empty()) g.topo_sort();
}

}  // namespace ingot::graph
