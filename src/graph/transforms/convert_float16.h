// convert_float16 (`ingot compile --dtype float16`): the model computed in float16, as ONNX
// Runtime's float16 converter with keep_io_types. Float32 constants become float16 (rounded to
// nearest even); float32 graph inputs are cast to float16 where they enter and float32 outputs
// cast back where they leave, so the artifact's interface is the model's; Casts to float32
// inside the model cast to float16 instead, and ops that generate float32 tensors (a `dtype`
// attribute: ConstantOfShape, EyeLike, the window functions) generate float16. (Inputs ONNX
// types as float32 whatever the data, Resize's roi and scales, are attributes by then.)
// Reductions keep float32:
// the compute rules accumulate float16 in float32 (lower/compute/common.h accum_dtype) and the
// GPU products round once from float32 (lower/compute/matmul_block.cpp). A graph pass (with
// --dtype float16) after the fusions and the batch-norm folding, which match and fold the float32
// model; the caller infers the types again.
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace ingot::graph {

struct Float16Stats {
  int constants = 0;  // float32 constants converted
  int inputs = 0, outputs = 0;
  int64_t constant_bytes_saved = 0;
};

Float16Stats convert_float16(Graph& g);

}  // namespace ingot::graph
