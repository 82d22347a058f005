// remove_identity (see remove_identity.h).
#include "graph/transforms/remove_identity.h"

#include <algorithm>

namespace ingot::graph {

void remove_identity(Graph& g) {
  std::vector<Node*> identities;
  for (const auto& n : g.nodes())
    if (n->op == ops::OpKind::Identity) identities.push_back(n.get());
  for (Node* n : identities) {
    Value* out = n->outputs[0];
    if (std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end()) continue;
    g.replace_all_uses(out, n->inputs[0]);
    n->inputs.clear();
    g.remove_node(n);
  }
}

}  // namespace ingot::graph
