// fuse_gelu: the erf form of GELU as exporters decompose it becomes one Gelu node:
//   a = Add(Erf(Div(x, sqrt 2) or Mul(x, 1 / sqrt 2)), 1)
//   y = x * a * 0.5 as two Muls in any association      =>  Gelu(x) (approximate "none")
// with the constants scalars and every intermediate read only inside the pattern.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_gelu(Graph& g);

}  // namespace ingot::graph
