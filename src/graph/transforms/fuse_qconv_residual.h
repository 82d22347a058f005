// fuse_qconv_residual (CPU targets, after layout_nchwc): the residual addition of a QDQ model's
// block, QuantizeLinear(Add(DequantizeLinear(QConvNCHWc(..)), DequantizeLinear(Z))), runs in the
// 8-bit conv's epilogue. Each accumulator is requantized as before (its value q1 exact), then,
// with the arithmetic the separate kernel would use (float32; ops/layout.cpp):
//   v = (q1 - y_zero_point') * y_scale' + (z - z_zero_point) * z_scale
//   out = saturate(round_half_even(v / out_scale) + out_zero_point)
// so the result is the unfused graph's bit for bit, and the blocked tensor q1 is never written
// or read again. Matched where the conv's output has that DequantizeLinear as its one reader,
// which has the Add as its one reader, which has the QuantizeLinear as its one reader; every
// scale and zero point per tensor; Z of the output's shape and blocks; the conv direct (not
// depthwise) and without a summand already. ResNet's and MobileNetV2's residual blocks.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

// The number of residual additions fused.
int fuse_qconv_residual(Graph& g);

}  // namespace ingot::graph
