// Common subexpression elimination (see cse.h).
#include "graph/transforms/cse.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

namespace ingot::graph {

namespace {

bool is_output(const Graph& g, const Value* v) {
  return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
}

// Small constants with equal type and bytes become one value (weights are not compared: equal
// large tensors are rare and comparing them costs time).
void merge_constants(Graph& g) {
  constexpr int64_t kMaxElements = 4096;
  std::vector<Value*> kept;
  std::vector<Value*> all;
  for (const auto& v : g.values())
    if (v->is_constant() && v->type.is_static() && v->type.num_elements() <= kMaxElements)
      all.push_back(v.get());
  for (Value* v : all) {
    if (is_output(g, v)) continue;
    auto same = std::find_if(kept.begin(), kept.end(), [&](const Value* k) {
      return k->type == v->type && std::memcmp(k->constant->data(), v->constant->data(),
                                               size_t(v->constant->nbytes())) == 0;
    });
    if (same == kept.end()) {
      kept.push_back(v);
    } else {
      g.replace_all_uses(v, *same);
    }
  }
}

}  // namespace

void eliminate_common_subexpressions(Graph& g) {
  merge_constants(g);
  using Key = std::tuple<ops::OpKind, std::vector<Value*>>;
  std::map<Key, std::vector<Node*>> seen;
  std::vector<Node*> dead;
  for (const auto& p : g.nodes()) {
    Node* n = p.get();
    Key key{n->op, n->inputs};
    auto& candidates = seen[key];
    auto match = std::find_if(candidates.begin(), candidates.end(), [&](const Node* m) {
      // (Control-flow nodes with the same inputs may run different bodies.)
      return m->attrs == n->attrs && m->outputs.size() == n->outputs.size() &&
             m->subgraphs == n->subgraphs;
    });
    bool replaceable = std::none_of(n->outputs.begin(), n->outputs.end(),
                                    [&](const Value* v) { return v && is_output(g, v); });
    if (match == candidates.end() || !replaceable) {
      candidates.push_back(n);
      continue;
    }
    for (size_t i = 0; i < n->outputs.size(); ++i)
      if (n->outputs[i] && (*match)->outputs[i])
        g.replace_all_uses(n->outputs[i], (*match)->outputs[i]);
    dead.push_back(n);
  }
  for (Node* n : dead) {
    n->inputs.clear();
    g.remove_node(n);
  }
}

}  // namespace ingot::graph
