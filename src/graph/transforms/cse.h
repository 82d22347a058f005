// Common subexpression elimination: two nodes with the same op, attributes and inputs compute
// the same values; the later one's users read the earlier one's outputs (graph outputs keep
// their own node). Constants with identical type and bytes are merged first, so nodes reading
// equal weights or shape tensors also merge.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void eliminate_common_subexpressions(Graph& g);

}  // namespace ingot::graph
