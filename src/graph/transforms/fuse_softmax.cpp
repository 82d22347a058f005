// fuse_softmax (see fuse_softmax.h).
#include "graph/transforms/fuse_softmax.h"

#include <algorithm>

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

using ops::OpKind;

// The one (non-negative) axis `reduce` (keepdims) reduces, or -1.
int64_t single_axis(const Node& reduce) {
  if (reduce.attrs.get_int("keepdims", 1) != 1) return -1;
  std::vector<int64_t> axes = reduce.attrs.get_ints("axes", {});
  int64_t rank = reduce.inputs[0]->type.rank();
  if (axes.size() != 1) return -1;
  int64_t a = axes[0] < 0 ? axes[0] + rank : axes[0];
  return a >= 0 && a < rank ? a : -1;
}

bool try_fuse(Graph& g, Node* div) {
  if (div->op != OpKind::Div || div->outputs[0]->type.dtype != DType::kF32) return false;
  Value* e = div->inputs[0];
  Node* sum = producer_if(g, div->inputs[1], OpKind::ReduceSum, div);
  if (!sum || !e || !e->producer || e->producer->op != OpKind::Exp || sum->inputs[0] != e)
    return false;
  Node* exp = e->producer;
  // e is read exactly by the Div and the ReduceSum.
  std::vector<Node*> e_users = g.users(e);
  if (e_users.size() != 2 || std::find(g.outputs.begin(), g.outputs.end(), e) != g.outputs.end() ||
      std::count(div->inputs.begin(), div->inputs.end(), e) != 1)
    return false;
  int64_t axis = single_axis(*sum);
  if (axis < 0) return false;
  std::vector<Node*> matched = {exp, sum, div};
  Value* x = exp->inputs[0];
  if (Node* sub = producer_if(g, x, OpKind::Sub, exp)) {
    Node* max = producer_if(g, sub->inputs[1], OpKind::ReduceMax, sub);
    if (max && max->inputs[0] == sub->inputs[0] && single_axis(*max) == axis) {
      x = sub->inputs[0];
      matched.insert(matched.begin(), {max, sub});
    }
  }
  if (!x || x->type != div->outputs[0]->type) return false;
  Attrs a;
  a.set("axis", axis);
  Node* sm = g.add_node(OpKind::Softmax, div->name + "_softmax", {x},
                        {div->outputs[0]->name + "_softmax_tmp"}, a);
  sm->outputs[0]->type = div->outputs[0]->type;
  replace_pattern(g, matched, div, sm);
  return true;
}

}  // namespace

void fuse_softmax(Graph& g) {
  rewrite_to_fixpoint(g, OpKind::Div, try_fuse);
}

}  // namespace ingot::graph
