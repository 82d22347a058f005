// Graph printer: readable text, one node per line with its output types, e.g.
//   %conv1_out: float32[N,64,112,112] = Conv(%x, %w) {group=1, strides=[2,2], ...}
#pragma once

#include <string>

#include "graph/graph.h"

namespace ingot::graph {

std::string print_graph(const Graph& g);
std::string print_node(const Node& n);  // one line, no trailing newline

}  // namespace ingot::graph
