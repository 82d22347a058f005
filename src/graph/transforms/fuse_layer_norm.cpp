// fuse_layer_norm (see fuse_layer_norm.h).
#include "graph/transforms/fuse_layer_norm.h"

#include <algorithm>

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

using ops::OpKind;

// The first normalised axis when `reduce` (keepdims) averages exactly the trailing axes k..r-1.
int trailing_axes(const Node& reduce) {
  if (reduce.attrs.get_int("keepdims", 1) != 1) return -1;
  std::vector<int64_t> axes = reduce.attrs.get_ints("axes", {});
  int rank = reduce.inputs[0]->type.rank();
  if (axes.empty()) return -1;
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - int64_t(axes.size()) + int64_t(i)) return -1;
  return int(axes.front());
}

// A constant whose shape is the normalised dims (leading 1s allowed).
bool param_for(const Value* p, const Value* x, int axis) {
  if (p == nullptr || !p->is_constant() || p->type.dtype != x->type.dtype) return false;
  const auto& ps = p->type.shape;
  const auto& xs = x->type.shape;
  int n = xs.size() - size_t(axis);
  if (int(ps.size()) < n) return false;
  for (size_t i = 0; i + size_t(n) < ps.size(); ++i)
    if (!(ps[i].is_static() && ps[i].value == 1)) return false;
  for (int i = 0; i < n; ++i)
    if (!(ps[ps.size() - size_t(n) + size_t(i)] == xs[size_t(axis + i)])) return false;
  return true;
}

bool try_fuse(Graph& g, Node* div) {
  if (div->op != OpKind::Div || div->outputs[0]->type.dtype != DType::kF32) return false;
  Value* d = div->inputs[0];
  Node* sqrt = producer_if(g, div->inputs[1], OpKind::Sqrt, div);
  if (!sqrt || !d || !d->producer || d->producer->op != OpKind::Sub) return false;
  Node* add_eps = producer_if(g, sqrt->inputs[0], OpKind::Add, sqrt);
  if (!add_eps) return false;
  double eps = 0;
  Value* var = add_eps->inputs[0];
  if (!scalar_value(add_eps->inputs[1], &eps)) {
    var = add_eps->inputs[1];
    if (!scalar_value(add_eps->inputs[0], &eps)) return false;
  }
  Node* var_mean = producer_if(g, var, OpKind::ReduceMean, add_eps);
  if (!var_mean) return false;
  Node* square = var_mean->inputs[0] ? var_mean->inputs[0]->producer : nullptr;
  if (!square || single_user(g, square->outputs[0]) != var_mean) return false;
  double two = 0;
  bool is_square = (square->op == OpKind::Pow && square->inputs[0] == d &&
                    scalar_value(square->inputs[1], &two) && two == 2.0) ||
                   (square->op == OpKind::Mul && square->inputs[0] == d && square->inputs[1] == d);
  if (!is_square) return false;
  Node* sub = d->producer;
  std::vector<Node*> d_users = g.users(d);
  if (d_users.size() != 2 || std::find(g.outputs.begin(), g.outputs.end(), d) != g.outputs.end())
    return false;
  Value* x = sub->inputs[0];
  Node* mean = producer_if(g, sub->inputs[1], OpKind::ReduceMean, sub);
  if (!mean || mean->inputs[0] != x) return false;
  int axis = trailing_axes(*mean);
  if (axis < 0 || trailing_axes(*var_mean) != axis) return false;
  std::vector<Node*> matched = {mean, sub, square, var_mean, add_eps, sqrt, div};
  // Optional affine: Mul(n, gamma), then Add(., beta).
  Node* last = div;
  Value* gamma = nullptr;
  Value* beta = nullptr;
  if (Node* mul = single_user(g, div->outputs[0]); mul && mul->op == OpKind::Mul) {
    Value* p = mul->inputs[0] == div->outputs[0] ? mul->inputs[1] : mul->inputs[0];
    if (param_for(p, x, axis) && mul->outputs[0]->type == x->type) {
      gamma = p, last = mul;
      matched.push_back(mul);
      if (Node* add = single_user(g, mul->outputs[0]); add && add->op == OpKind::Add) {
        Value* q = add->inputs[0] == mul->outputs[0] ? add->inputs[1] : add->inputs[0];
        if (param_for(q, x, axis) && add->outputs[0]->type == x->type) {
          beta = q, last = add;
          matched.push_back(add);
        }
      }
    }
  }
  if (last->outputs[0]->type != x->type) return false;
  // Scale and bias in the normalised dims' shape.
  std::vector<int64_t> norm_shape;
  for (size_t i = size_t(axis); i < x->type.shape.size(); ++i) {
    if (!x->type.shape[i].is_static()) return false;
    norm_shape.push_back(x->type.shape[i].value);
  }
  int64_t count = 1;
  for (int64_t v : norm_shape) count *= v;
  auto reshaped = [&](const Value* p, float fill, const char* what) {
    std::vector<float> data(size_t(count), fill);
    if (p) std::copy_n(p->constant->data_as<float>(), count, data.begin());
    return g.add_constant(last->outputs[0]->name + what, f32_constant(norm_shape, data));
  };
  std::vector<Value*> inputs = {x, reshaped(gamma, 1.0f, "_ln_scale")};
  if (beta) inputs.push_back(reshaped(beta, 0.0f, "_ln_bias"));
  Attrs a;
  a.set("axis", int64_t(axis));
  a.set("epsilon", eps);
  Node* ln = g.add_node(OpKind::LayerNormalization, div->name + "_layer_norm", inputs,
                        {last->outputs[0]->name + "_ln_tmp"}, a);
  ln->outputs[0]->type = last->outputs[0]->type;
  replace_pattern(g, matched, last, ln);
  return true;
}

}  // namespace

void fuse_layer_norm(Graph& g) {
  rewrite_to_fixpoint(g, OpKind::Div, try_fuse);
}

}  // namespace ingot::graph
