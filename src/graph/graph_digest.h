// A digest of a graph's structure (its printed form: ops, attributes, value names and types;
// not the constants' data), so that graph-level tuning decisions keyed by node name
// (tune/records.h: conv algorithms, layouts) apply only to the model they were measured on.
#pragma once

#include <string>

#include "graph/graph.h"

namespace ingot::graph {

// 16 hex digits of XXH3-64 over print_graph(g).
std::string graph_digest(const Graph& g);

}  // namespace ingot::graph
