// Dead-code removal: drops nodes whose outputs reach no graph output, and unused values.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void remove_dead_code(Graph& g);

}  // namespace ingot::graph
