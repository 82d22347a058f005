// The width of a device function's index arithmetic (TVM's NarrowDataType for GPU targets).
// Loop IR computes indices in int64; a GPU does 64-bit integer arithmetic in pairs of 32-bit
// instructions and holds each value in two registers. When every int64 value a function computes
// (every subexpression: loop and thread indices, offsets, conditions, stored values) provably
// lies in int32's range, given the grid, the block and its loops' bounds, the printers compute
// it in 32 bits. A load of an int64 tensor, or a float converted to an integer, has no such bound,
// so a function with one keeps 64-bit arithmetic throughout.
#pragma once

#include <unordered_set>

#include "codegen/gpu/device_lowering.h"

namespace ingot::codegen {

bool indices_fit_int32(const DeviceFunction& f);
// The same for a CPU kernel's body (the C target), per expression: the int64 expressions and
// loop / let variables of `body` whose value and every int64 value computed inside them
// provably fit in int32 (by their loops' bounds). The C printer computes those in int32_t and
// the rest in int64_t, so one 64-bit product (a fixed-point requantization) does not widen a
// kernel's index arithmetic.
std::unordered_set<const tir::ExprNode*> int32_subexpressions(const tir::Stmt& body);

}  // namespace ingot::codegen
