// The dequantized element of weight-only quantized integers (ops/weight_quant.cpp): one
// expression, written once, for the compute that describes WQMatMul / WQGather
// (lower/compute/weight_quant.cpp) and the dequantizing micro-kernel's description
// (schedule/intrin/dequant_fma.h), which tensorize matches against each other.
#pragma once

#include <cstdint>

#include "tir/buffer.h"
#include "tir/expr.h"

namespace ingot::tir {

// int4 weights are stored as nibbles of the weight plus this.
inline constexpr int64_t kInt4ZeroPoint = 8;

// B(k, j) as float32: float(q[k, j]) * scales[k / group, j] for bits 8 (q int8 [K, ..]); for
// bits 4 (q uint8 [K / 2, ..], k even the low nibble of byte k / 2, odd the high one)
// (float(nibble) - kInt4ZeroPoint) * scales[k / group, j].
Expr dequantized_weight(int bits, int64_t group, const Buffer& q, const Buffer& scales, Expr k,
                        Expr j);

}  // namespace ingot::tir
