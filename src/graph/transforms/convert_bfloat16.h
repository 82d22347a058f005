// convert_bfloat16 (`ingot compile --dtype bfloat16`): the model's products in bfloat16 with
// float32 accumulation, the mixed precision that AMX (TDPBF16PS) and AVX512-BF16 (VDPBF16PS)
// run and that oneDNN and PyTorch's CPU autocast use. Each float32 MatMul and Gemm whose weight
// B is a constant reads B stored as bfloat16 (rounded to nearest even: half the bytes in the
// artifact) and its activation A through a Cast to bfloat16; the node accumulates in float32
// and its output stays float32 (attribute `out_dtype`, ops/matmul.cpp), as do its bias and its
// fused epilogue. Everything else computes in float32, so the artifact's interface is the
// model's. Products of two activations (attention's Q K^T and P V) and convolutions stay
// float32 (docs/bfloat16.md says why and what is left). A graph pass after the fusions, which
// match the float32 model; the caller infers the types again.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace ingot::graph {

struct BFloat16Stats {
  int products = 0;   // MatMul / Gemm nodes converted
  int constants = 0;  // weights stored as bfloat16
  int64_t constant_bytes_saved = 0;
};

BFloat16Stats convert_bfloat16(Graph& g);

}  // namespace ingot::graph
