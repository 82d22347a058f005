// fuse_softmax: Softmax as exporters decompose it becomes one Softmax node:
//   e = Exp(Sub(x, ReduceMax(x, axes=[a], keepdims=1)))   (or e = Exp(x), without the max)
//   y = Div(e, ReduceSum(e, axes=[a], keepdims=1))        =>  Softmax(x, axis=a)
// with every intermediate read only inside the pattern.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_softmax(Graph& g);

}  // namespace ingot::graph
