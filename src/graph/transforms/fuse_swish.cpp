// fuse_swish (see fuse_swish.h).
#include "graph/transforms/fuse_swish.h"

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

using ops::OpKind;

bool try_fuse(Graph& g, Node* mul) {
  if (mul->op != OpKind::Mul || mul->inputs.size() != 2) return false;
  for (int s = 0; s < 2; ++s) {
    Value* x = mul->inputs[1 - s];
    Node* sig = producer_if(g, mul->inputs[s], OpKind::Sigmoid, mul);
    if (sig == nullptr || x == nullptr || sig->inputs[0] != x) continue;
    if (x->type != mul->outputs[0]->type || !x->type.is_static() ||
        (x->type.dtype != DType::kF32 && x->type.dtype != DType::kF16))
      return false;
    Attrs a;
    a.set("alpha", 1.0);
    Node* swish = g.add_node(OpKind::Swish, mul->name + "_swish", {x},
                             {mul->outputs[0]->name + "_swish_tmp"}, a);
    swish->opset = mul->opset;
    swish->outputs[0]->type = mul->outputs[0]->type;
    replace_pattern(g, {sig, mul}, mul, swish);
    return true;
  }
  return false;
}

}  // namespace

void fuse_swish(Graph& g) {
  rewrite_to_fixpoint(g, OpKind::Mul, try_fuse);
}

}  // namespace ingot::graph
