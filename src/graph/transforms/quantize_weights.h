// quantize_weights (--quantize-weights int8|int4, --group-size G): weight-only quantization at
// compile time. A constant float32 matrix W read as the B operand of MatMul / Gemm (directly or
// transposed: perm_b, transB) is replaced by symmetric integers Wq in the [K, N] layout of B,
// with one float32 scale per group of G elements along K (scale = max |B| of the group / 127 for
// int8, / 7 for int4; int4 packs two along K per byte). The products become WQMatMul, which
// dequantizes where it reads (lower/compute/weight_quant.cpp); a Gather of the same W as a tied
// embedding (rows of B's transpose) becomes WQGather, so the float copy goes away too.
// A weight is left as it is when any reader is something else, when its readers disagree on
// its orientation, or when K is not a multiple of G (counted in the stats).
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace ingot::graph {

struct QuantizeWeightsStats {
  int quantized = 0;            // weights replaced
  int skipped = 0;              // float32 matrices read by a product but left as they were
  int64_t float_bytes = 0;      // the replaced weights' float32 bytes
  int64_t quantized_bytes = 0;  // their integers and scales
  double max_rel_error = 0;     // of the dequantized elements: max |B' - B| / max |B| per weight
};

// bits: 8 or 4; group_size: even, >= 2.
QuantizeWeightsStats quantize_weights(Graph& g, int bits, int group_size);

}  // namespace ingot::graph
