// ONNX TensorProto -> graph::Tensor (inline raw_data, typed repeated fields, or lazily loaded
// external data) and ONNX element-type codes -> graph::DType.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

#include "graph/tensor.h"
#include "graph/types.h"

namespace ingot::frontend::detail {

// The graph dtype for an ONNX TensorProto.DataType code; nullopt for types ingot does not support.
std::optional<graph::DType> dtype_from_onnx(int32_t code);
// "FLOAT16", "STRING", or the number when the code is unknown.
std::string onnx_dtype_name(int32_t code);

// Converts `t`. `what` names it in messages ("initializer 'w'"); external data locations are
// relative to `model_dir`. Throws UserError for unsupported dtypes, bad sizes and missing files.
graph::TensorPtr tensor_from_proto(const onnx::TensorProto& t, const std::string& what,
                                   const std::string& model_dir);

}  // namespace ingot::frontend::detail
