// fold_batch_norm: Conv (constant weights, constant or no bias) followed by an inference
// BatchNormalization with constant parameters becomes one Conv:
//   s = scale / sqrt(var + epsilon);  W'[o] = W[o] * s[o];  b'[o] = (b[o] - mean[o]) * s[o] + B[o]
// computed at compile time in double precision. The Conv takes over the BN's output value.
// Any other inference BatchNormalization with constant parameters (a pre-activation BN after a
// Concat, as in DenseNet) becomes Y = X * s + (B - mean * s) with [1, C, 1, ...] constants: a
// per-channel Mul and Add, which run fused and stay in the blocked layout between convs.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fold_batch_norm(Graph& g);

}  // namespace ingot::graph
