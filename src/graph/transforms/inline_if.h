// Inlining of an If whose condition is known at compile time: the branch it takes replaces it
// (its nodes are copied into the graph, its captures read the outer values they stand for), and
// the branch it does not take is never inferred (it may be invalid for these shapes, as the
// 3-D branch of an expanded AffineGrid is for a 2-D grid). Run by infer_types.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

// Whether `n` is an If whose cond is a constant.
bool is_constant_if(const Node& n);

// Replaces constant If `n` by the branch it takes. A graph output keeps its name (through an
// Identity). The new nodes are appended; the caller sorts and infers again.
void inline_constant_if(Graph& g, Node* n);

}  // namespace ingot::graph
