// The fused epilogue of a Conv or MatMul (graph pass fuse_epilogue; ONNX Runtime's FusedConv
// form): y = activation(x + bias + Z), with Z the optional input 3 and the activation "Relu",
// "Clip" (activation_params = [min, max]) or "Gelu" (erf form). Shared by the loop-nest rules and
// the scheduled kernels' output stages; the bias is added by the caller (it is the init row of
// the scheduled kernels).
#pragma once

#include "graph/graph.h"
#include "tir/stmt.h"

namespace ingot::lower {

// True when the node carries a summand or an activation.
bool has_epilogue(const graph::Node& node);
// activation(value + z); z undefined when there is no summand.
tir::Expr apply_epilogue(const graph::Node& node, tir::Expr value, tir::Expr z);
// The epilogue as a pass over `y` in place: y = activation(y + bias[last index] + z), bias and z
// optional (undefined buffers); z has y's shape. With `from` (a float32 accumulator of y's shape
// for a float16 / bfloat16 y): y = activation(from + bias + z) computed in float32, rounded once.
tir::Stmt epilogue_pass(const graph::Node& node, const tir::Buffer& y, const tir::Buffer& bias,
                        const tir::Buffer& z, const tir::Buffer& from = tir::Buffer());

}  // namespace ingot::lower
