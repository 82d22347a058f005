// The width of a device function's index arithmetic (TVM's NarrowDataType for GPU targets).
// Loop IR computes indices in int64; a GPU does 64-bit integer arithmetic in pairs of 32-bit
// instructions and holds each value in two registers. When every int64 value a function computes
// (every subexpression: loop and thread indices, offsets, conditions, stored values) provably
// lies in int32's range, given the grid, the block and its loops' bounds, the printers compute
// it in 32 bits. A load of an int64 tensor, or a float converted to an integer, has no such bound,
// so a function with one keeps 64-bit arithmetic throughout.
#pragma once

#include "codegen/gpu/device_lowering.h"

namespace ingot::codegen {

bool indices_fit_int32(const DeviceFunction& f);
// The same for a CPU kernel's body (the C target): its loops' bounds only.
bool indices_fit_int32(const tir::Stmt& body);

}  // namespace ingot::codegen
