// fuse_layer_norm: the decomposed layer normalisation exporters emit becomes one
// LayerNormalization node (its compute rule makes two passes over each row instead of nine
// kernels over the whole tensor):
//   mean = ReduceMean(x, axes = trailing dims k.., keepdims)   d = Sub(x, mean)
//   var = ReduceMean(Pow(d, 2) or Mul(d, d), same axes)        n = Div(d, Sqrt(Add(var, eps)))
//   [Mul(n, gamma)] [Add(., beta)]        =>  LayerNormalization(x, gamma or 1, beta; axis k, eps)
// with gamma, beta constants of the normalised dims' shape and eps a scalar constant; every
// intermediate is read only inside the pattern.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_layer_norm(Graph& g);

}  // namespace ingot::graph
