// Graph verifier: structural invariants (SSA, producer links, topological order, ownership)
// and that every value's type matches what inference gives. Violations are InternalErrors.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void verify_graph(const Graph& g);

}  // namespace ingot::graph
