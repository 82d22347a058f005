// Inlining of an If with a constant condition (see inline_if.h).
#include "graph/transforms/inline_if.h"

#include <algorithm>
#include <unordered_map>

#include "support/error.h"

namespace ingot::graph {

bool is_constant_if(const Node& n) {
  return n.op == ops::OpKind::If && !n.inputs.empty() && n.inputs[0] != nullptr &&
         n.inputs[0]->is_constant() && n.inputs[0]->constant->num_elements() == 1 &&
         n.subgraphs.size() == 2;
}

void inline_constant_if(Graph& g, Node* n) {
  INGOT_ICHECK(is_constant_if(*n), "{} is not an If with a constant cond", n->describe());
  const Graph& body = *n->subgraphs[n->inputs[0]->constant->get_i64(0) != 0 ? 0 : 1];
  const size_t captures = n->inputs.size() - 1;
  INGOT_ICHECK(body.inputs.size() == captures && body.outputs.size() == n->outputs.size(),
               "{}: branch arity", n->describe());
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < captures; ++i) map[body.inputs[i]] = n->inputs[1 + i];
  auto mapped = [&](Value* v) -> Value* {
    if (v == nullptr) return nullptr;
    auto it = map.find(v);
    if (it != map.end()) return it->second;
    INGOT_ICHECK(v->is_constant(), "{}: branch value '{}' read before it is defined", n->describe(),
                 v->name);
    return map[v] = g.add_constant(v->name, v->constant);
  };
  for (const auto& bn : body.nodes()) {  // imported in topological order
    std::vector<Value*> ins;
    for (Value* v : bn->inputs) ins.push_back(mapped(v));
    std::vector<std::string> names;
    for (const Value* v : bn->outputs) names.push_back(v != nullptr ? v->name : "");
    Node* c = g.add_node(bn->op, bn->name, std::move(ins), std::move(names), bn->attrs);
    c->opset = bn->opset;
    c->fused = bn->fused;
    c->subgraphs = bn->subgraphs;
    for (size_t k = 0; k < bn->outputs.size(); ++k)
      if (bn->outputs[k] != nullptr) map[bn->outputs[k]] = c->outputs[k];
  }
  for (size_t k = 0; k < n->outputs.size(); ++k) {
    Value* old = n->outputs[k];
    if (old == nullptr) continue;
    Value* now = mapped(body.outputs[k]);
    if (std::find(g.outputs.begin(), g.outputs.end(), old) != g.outputs.end()) {
      Node* id = g.add_node(ops::OpKind::Identity, n->name + "/" + old->name, {now}, {old->name});
      id->opset = n->opset;
      now = id->outputs[0];
    }
    g.replace_all_uses(old, now);
  }
  n->inputs.clear();
  g.remove_node(n);
}

}  // namespace ingot::graph
