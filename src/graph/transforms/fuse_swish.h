// fuse_swish: the decomposed SiLU / Swish that torch exports, Mul(x, Sigmoid(x)) in either
// operand order (the Sigmoid read only by that Mul), becomes one Swish(x) node (alpha 1), which
// fuse_epilogue can then apply inside a Conv's or MatMul's output stage.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_swish(Graph& g);

}  // namespace ingot::graph
