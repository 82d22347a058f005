// Portable C99 for one loop-form CPU kernel (the `c` target): a static function over typed
// pointers, one per kernel parameter, with `restrict` where no other argument of any call
// overlaps it. No heap, no OS, no threads: parallel and vectorized loops are plain loops (the
// C compiler vectorizes what it can for its -mcpu); local buffers are arrays on the stack; math
// is <math.h>'s float functions. Arithmetic follows the LLVM backend's semantics: floor division
// and modulo of signed integers, min / max as compare-and-select (a NaN operand gives the other
// one), round half to even (rintf in the default rounding mode), integer arithmetic narrower
// than int wrapped back to its type. An int64 expression is computed in int32_t where it and
// every int64 value inside it provably fit (codegen/gpu/index_width.h: int32_subexpressions),
// which a 32-bit microcontroller needs; a signed floor division (modulo) by a power of two is a
// shift (mask). float16 and bfloat16 tensors are stored as their bits and computed in float32
// (portable conversions with ties to even; a cast to either rounds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/c_names.h"
#include "tir/prim_func.h"

namespace ingot::codegen {

struct CKernel {
  std::string code;         // the function definition
  int64_t stack_bytes = 0;  // bytes of its local arrays (all of them, nested or not)
};

// `symbol`: the C name to define; `noalias[i]`: parameter i overlaps no other argument in any
// call (codegen/kernel_args.h). UserError naming the kernel for what C cannot express here.
CKernel print_c_kernel(const tir::PrimFunc& f, const std::string& symbol,
                       const std::vector<bool>& noalias);

// The helpers the kernels call (floor division, min / max, sigmoid), as static inline C99
// functions: once at the top of a source file, after <stdint.h> and <math.h>.
const char* c_kernel_prelude();

}  // namespace ingot::codegen
