// collapse_reshape_transpose: chains of layout ops become one op or none (each of these is a
// copy kernel at run time). Per node, repeated while a rule applies:
//   Transpose(Transpose(x, p1), p2)          => Transpose(x, p) with p[d] = p1[p2[d]]
//   Transpose(x, identity)                   => x
//   Transpose that keeps the order of the dims of extent > 1 (moves only 1s), static shape
//                                            => Reshape(x, its output shape)
//   Reshape-like(Reshape-like(x)), static output shape (Reshape-like: Reshape, Flatten,
//   Squeeze, Unsqueeze)                      => Reshape(x, its output shape)
//   Reshape-like(x) to x's own static shape  => x
// A removed node's output must not be a graph output (it keeps its name). The inner node stays
// while other nodes read it (dead_code removes it otherwise).
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void collapse_reshape_transpose(Graph& g);

}  // namespace ingot::graph
