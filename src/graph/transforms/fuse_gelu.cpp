// fuse_gelu (see fuse_gelu.h).
#include "graph/transforms/fuse_gelu.h"

#include <cmath>

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

using ops::OpKind;

bool near(double a, double b) {
  return std::fabs(a - b) <= 1e-4 * std::fabs(b);
}

// x when `a` is Add(Erf(x / sqrt 2), 1) read only by `reader`, with its chain; else null.
Value* erf_term(const Graph& g, Value* a, const Node* reader, std::vector<Node*>* chain) {
  Node* add = producer_if(g, a, OpKind::Add, reader);
  if (!add) return nullptr;
  double one = 0;
  Value* e = add->inputs[0];
  if (!scalar_value(add->inputs[1], &one)) {
    e = add->inputs[1];
    if (!scalar_value(add->inputs[0], &one)) return nullptr;
  }
  if (one != 1.0) return nullptr;
  Node* erf = producer_if(g, e, OpKind::Erf, add);
  if (!erf) return nullptr;
  Node* scale = erf->inputs[0] ? erf->inputs[0]->producer : nullptr;
  if (!scale || single_user(g, scale->outputs[0]) != erf) return nullptr;
  double c = 0;
  bool ok = (scale->op == OpKind::Div && scalar_value(scale->inputs[1], &c) && near(c, M_SQRT2)) ||
            (scale->op == OpKind::Mul && scalar_value(scale->inputs[1], &c) && near(c, M_SQRT1_2));
  if (!ok) return nullptr;
  chain->insert(chain->end(), {scale, erf, add});
  return scale->inputs[0];
}

// The operand of the binary node `n` other than a scalar constant equal to `want` (exactly, or
// within the 1e-4 relative tolerance); null when neither operand is such a scalar.
Value* other_than_scalar(const Node* n, double want, bool exact) {
  for (int k = 0; k < 2; ++k) {
    double c = 0;
    if (scalar_value(n->inputs[k], &c) && (exact ? c == want : near(c, want)))
      return n->inputs[1 - k];
  }
  return nullptr;
}

// True when `v` is x^3 as Pow(x, 3) or x * x * x (either association), read only by `reader`.
bool is_cube(const Graph& g, Value* v, const Value* x, const Node* reader,
             std::vector<Node*>* chain) {
  if (Node* pow = producer_if(g, v, OpKind::Pow, reader)) {
    double three = 0;
    if (pow->inputs[0] != x || !scalar_value(pow->inputs[1], &three) || three != 3.0) return false;
    chain->push_back(pow);
    return true;
  }
  Node* m = producer_if(g, v, OpKind::Mul, reader);
  if (!m) return false;
  for (int k = 0; k < 2; ++k) {
    if (m->inputs[1 - k] != x) continue;
    Node* sq = producer_if(g, m->inputs[k], OpKind::Mul, m);
    if (sq && sq->inputs[0] == x && sq->inputs[1] == x) {
      chain->insert(chain->end(), {sq, m});
      return true;
    }
  }
  return false;
}

// x when `a` is Add(Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)), 1) read only by `reader` (operands
// of each Add/Mul in either order), with its chain; else null.
Value* tanh_term(const Graph& g, Value* a, const Node* reader, std::vector<Node*>* chain) {
  Node* add = producer_if(g, a, OpKind::Add, reader);
  if (!add) return nullptr;
  Node* tanh = producer_if(g, other_than_scalar(add, 1.0, true), OpKind::Tanh, add);
  if (!tanh) return nullptr;
  Node* scale = producer_if(g, tanh->inputs[0], OpKind::Mul, tanh);
  if (!scale) return nullptr;
  Node* inner =
      producer_if(g, other_than_scalar(scale, std::sqrt(2.0 / M_PI), false), OpKind::Add, scale);
  if (!inner) return nullptr;
  for (int k = 0; k < 2; ++k) {  // k: the x operand of inner
    Value* x = inner->inputs[k];
    Node* cmul = producer_if(g, inner->inputs[1 - k], OpKind::Mul, inner);
    if (!cmul) continue;
    std::vector<Node*> cube;
    if (!is_cube(g, other_than_scalar(cmul, 0.044715, false), x, cmul, &cube)) continue;
    chain->insert(chain->end(), cube.begin(), cube.end());
    chain->insert(chain->end(), {cmul, inner, scale, tanh, add});
    return x;
  }
  return nullptr;
}

bool try_fuse(Graph& g, Node* outer) {
  if (outer->op != OpKind::Mul || outer->outputs[0]->type.dtype != DType::kF32) return false;
  // outer = Mul(inner, w) with inner = Mul(u, v): the leaves are {u, v, w}, in any order.
  for (int side = 0; side < 2; ++side) {
    Node* inner = producer_if(g, outer->inputs[side], OpKind::Mul, outer);
    if (!inner) continue;
    Value* leaves[3] = {inner->inputs[0], inner->inputs[1], outer->inputs[1 - side]};
    for (int h = 0; h < 3; ++h) {  // h: the 0.5 leaf
      double half = 0;
      if (!scalar_value(leaves[h], &half) || half != 0.5) continue;
      for (int t = 0; t < 6; ++t) {  // t % 3: the erf or tanh term; t < 3: erf
        if (t % 3 == h) continue;
        int xi = 3 - h - t % 3;
        std::vector<Node*> chain;
        const Node* reader = t % 3 == 2 ? outer : inner;
        Value* x = t < 3 ? erf_term(g, leaves[t % 3], reader, &chain)
                         : tanh_term(g, leaves[t % 3], reader, &chain);
        if (!x || x != leaves[xi] || x->type != outer->outputs[0]->type) continue;
        chain.insert(chain.end(), {inner, outer});
        Attrs a;
        a.set("approximate", std::string(t < 3 ? "none" : "tanh"));
        Node* gelu = g.add_node(OpKind::Gelu, outer->name + "_gelu", {x},
                                {outer->outputs[0]->name + "_gelu_tmp"}, a);
        gelu->outputs[0]->type = outer->outputs[0]->type;
        replace_pattern(g, chain, outer, gelu);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void fuse_gelu(Graph& g) {
  rewrite_to_fixpoint(g, OpKind::Mul, try_fuse);
}

}  // namespace ingot::graph
