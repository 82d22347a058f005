// verify_graph: checks SSA form, producer links, topological order and inferred types.
#include "graph/verifier.h"

#include <unordered_set>

#include "ops/op.h"
#include "support/error.h"

namespace ingot::graph {

namespace {

std::string vname(const Value* v) {
  return "'" + v->name + "'";
}

}  // namespace

void verify_graph(const Graph& g) {
  std::unordered_set<const Value*> owned;
  std::unordered_set<int> value_ids, node_ids;
  for (const auto& v : g.values()) {
    owned.insert(v.get());
    INGOT_ICHECK(value_ids.insert(v->id).second, "verify: duplicate value id {}", v->id);
    if (v->is_constant())
      INGOT_ICHECK(v->type == v->constant->type() && v->producer == nullptr,
                   "verify: constant {} has type {} but data {}", vname(v.get()), v->type.str(),
                   v->constant->type().str());
  }
  std::unordered_set<const Node*> nodes;
  for (const auto& n : g.nodes()) nodes.insert(n.get());

  std::unordered_set<const Value*> defined;
  for (const Value* v : g.inputs) {
    INGOT_ICHECK(owned.count(v), "verify: graph input {} is not owned by the graph", vname(v));
    INGOT_ICHECK(v->producer == nullptr && !v->is_constant(),
                 "verify: graph input {} has a producer or data", vname(v));
    defined.insert(v);
  }
  for (const auto& v : g.values()) {
    if (v->is_constant()) defined.insert(v.get());
    if (v->producer)
      INGOT_ICHECK(nodes.count(v->producer) && v->output_index >= 0 &&
                       v->output_index < int(v->producer->outputs.size()) &&
                       v->producer->outputs[v->output_index] == v.get(),
                   "verify: value {} has a broken producer link", vname(v.get()));
  }
  for (const auto& n : g.nodes()) {
    INGOT_ICHECK(node_ids.insert(n->id).second, "verify: duplicate node id {}", n->id);
    for (const Value* in : n->inputs) {
      if (!in) continue;
      INGOT_ICHECK(owned.count(in), "verify: {} uses value {} not owned by the graph",
                   n->describe(), vname(in));
      INGOT_ICHECK(defined.count(in),
                   "verify: {} uses {} before it is defined (not in SSA "
                   "topological order)",
                   n->describe(), vname(in));
    }
    for (size_t i = 0; i < n->outputs.size(); ++i) {
      const Value* out = n->outputs[i];
      INGOT_ICHECK(owned.count(out) && out->producer == n.get() && out->output_index == int(i),
                   "verify: output {} of {} has a broken producer link", vname(out), n->describe());
      INGOT_ICHECK(defined.insert(out).second, "verify: value {} is defined twice", vname(out));
    }
    // Types: re-infer on a copy (inference may normalise attributes, so never on the original).
    Node copy = *n;
    std::vector<TensorType> expected;
    try {
      expected = ops::op_info(n->op).infer(copy);
    } catch (const UserError& e) {
      fail_internal("verify: type inference fails on {}: {}", n->describe(), e.what());
    }
    for (size_t i = 0; i < expected.size(); ++i)
      INGOT_ICHECK(expected[i] == n->outputs[i]->type,
                   "verify: output {} of {} has type {} but inference gives {}",
                   vname(n->outputs[i]), n->describe(), n->outputs[i]->type.str(),
                   expected[i].str());
  }
  for (const Value* v : g.outputs)
    INGOT_ICHECK(v && defined.count(v), "verify: graph output {} is not defined",
                 v ? vname(v) : "(null)");
}

}  // namespace ingot::graph
