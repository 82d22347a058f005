// Math intrinsics in LLVM IR: LLVM intrinsics / libm for most, and inline vectorizable
// formulas for exp (float32), tanh, erf and sigmoid.
#pragma once

#include <vector>

#include "tir/expr.h"

namespace llvm {
class IRBuilderBase;
class Module;
class Value;
}  // namespace llvm

namespace ingot::codegen {

// args: lowered arguments, all of one float (vector) type; returns the same type.
llvm::Value* lower_intrinsic(llvm::IRBuilderBase& b, llvm::Module& m, tir::Intrinsic op,
                             const std::vector<llvm::Value*>& args);

}  // namespace ingot::codegen
