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
      for (int t = 0; t < 3; ++t) {  // t: the erf term
        if (t == h) continue;
        int xi = 3 - h - t;
        std::vector<Node*> chain;
        const Node* reader = t == 2 ? outer : inner;
        Value* x = erf_term(g, leaves[t], reader, &chain);
        if (!x || x != leaves[xi] || x->type != outer->outputs[0]->type) continue;
        chain.insert(chain.end(), {inner, outer});
        Attrs a;
        a.set("approximate", std::string("none"));
        Node* gelu = g.add_node(OpKind::Gelu, outer->name + "_gelu", {x},
                                {outer->outputs[0]->name + "_gelu_tmp"}, a);
        gelu->outputs[0]->type = outer->outputs[0]->type;
        for (Node* m : chain) gelu->fused.push_back(ops::op_name(m->op));
        replace_pattern(g, chain, outer, gelu);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

void fuse_gelu(Graph& g) {
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<Node*> muls;
    for (const auto& n : g.nodes())
      if (n->op == OpKind::Mul) muls.push_back(n.get());
    for (Node* m : muls)
      if (try_fuse(g, m)) {
        changed = true;
        break;
      }
  }
}

}  // namespace ingot::graph
