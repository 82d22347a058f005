// fuse_epilogue: elementwise ops that follow a Conv or MatMul are computed in its kernel as it
// writes its output, the fusion ONNX Runtime calls FusedConv. Patterns, repeated while they
// apply (each consumer must be the output's only reader):
//   MatMul -> Add(y, c), c a constant row [.., 1, N]  => MatMul input 2 = c as [N] (the bias)
//   Conv/MatMul -> Add(y, Z), Z of the output's type   => input 3 = Z (y = x + bias + Z)
//   -> Relu / Gelu (erf) / Clip(min, max) with constant bounds => activation (+ params)
//   -> a one-input activation (ops::is_epilogue_activation: Sigmoid, Swish, HardSwish, ...)
//      => activation = its op name, its float attributes as activation_alpha / _beta / _gamma
// (the Adds only before an activation). The fused node takes over the last op's output value.
// float32 Convs and MatMuls, and float16 MatMuls (a bias row in their dtype): the GPU targets
// compute a float16 epilogue in float32 with the product's float32 sums and round once.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_epilogue(Graph& g);

}  // namespace ingot::graph
