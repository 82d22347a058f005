// fuse_gelu: the erf form of GELU as exporters decompose it becomes one Gelu node:
//   a = Add(Erf(Div(x, sqrt 2) or Mul(x, 1 / sqrt 2)), 1)
//   y = x * a * 0.5 as two Muls in any association      =>  Gelu(x) (approximate "none")
// and the tanh form
//   a = Add(Tanh(Mul(Add(x, Mul(Pow(x, 3) or x * x * x, 0.044715)), sqrt(2 / pi))), 1)
//   y = x * a * 0.5 as above                                  =>  Gelu(x) (approximate "tanh")
// (operands of each Add/Mul in either order), with the constants scalars (checked to 1e-4
// relative) and every intermediate read only inside the pattern.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_gelu(Graph& g);

}  // namespace ingot::graph
