// fuse_qdq: a quantized model's QDQ form (what ONNX Runtime's quantizer and most converters
// write: every quantized tensor dequantized before a float op and quantized after it) becomes
// integer kernels where the arithmetic allows:
//   QuantizeLinear(Conv(DequantizeLinear(x_q), DequantizeLinear(W_q), bias?))      -> QConv
//   QuantizeLinear(MatMul / Gemm(DequantizeLinear(a_q), DequantizeLinear(B_q), C?)) -> QMatMul
// with an optional Relu between the op and the QuantizeLinear (then the output saturates at the
// zero point). A MatMul / Gemm whose weights are symmetric int8 (zero point 0, ONNX Runtime's
// default), with uint8 or int8 activations, becomes IntMatMul (A's zero point folded into its
// int32 bias) and Requantize instead: the form the 8-bit kernels take (rules/int8_matmul.h).
// Conditions: x, y per-tensor with constant scales and zero points; W constant, per-tensor or per
// output channel scales, one zero point; uint8 / int8; the bias a float constant or a dequantized
// int32 constant; Gemm with alpha = beta = 1 and no transA. Each output channel's real multiplier
// x_scale * w_scale[c] / y_scale becomes multiplier[c] / 2^shift with one shift for all channels
// (the largest multiplier just under 2^31); the bias becomes round(b[c] / (x_scale * w_scale[c]))
// in int32 (exactly the quantizer's int32 bias). Then every DequantizeLinear whose inputs are all
// constants (weights of patterns that did not fuse) is evaluated here into a float constant
// (infer_types leaves those to this pass).
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

// `blocked_int8_convs` (a CPU target whose layout pass runs 8-bit blocked convolutions,
// layout_nchwc.h: QConvNCHWc): a 2-D Conv of groups = 1, or depthwise, with symmetric int8
// weights becomes a
// QConv whatever its activation's 8-bit family (uint8 x int8, ONNX Runtime's default), not only
// where both share one; elsewhere such a conv stays float arithmetic, which the other targets'
// conv kernels run faster than QConv's plain loops.
void fuse_qdq(Graph& g, bool blocked_int8_convs = false);

// Whether infer_types' constant folding should leave `n` to fuse_qdq: a DequantizeLinear of an
// integer constant read by a Conv, MatMul or Gemm.
bool keep_for_fuse_qdq(const Graph& g, const Node& n);

// The fixed-point form of positive real multipliers: one shift and an int32 multiplier each,
// m ~= multiplier * 2^-shift. nullopt when the largest is 2^31 or more or one is not positive
// and finite.
struct FixedPointMultipliers {
  std::vector<int32_t> multipliers;
  int shift = 0;
};
std::optional<FixedPointMultipliers> fixed_point_multipliers(const std::vector<double>& m);

}  // namespace ingot::graph
