// What the entry's calls say about kernel arguments, for any backend: which parameters never
// overlap another argument of the same call (LLVM's noalias, C's restrict, CUDA's __restrict__).
#pragma once

#include <vector>

#include "tir/module.h"

namespace ingot::codegen {

// noalias[k][i]: in every call of kernel k from the entry, argument i overlaps no other argument
// (computed once per module; each kernel takes its row).
std::vector<std::vector<bool>> noalias_params(const tir::IRModule& module);

}  // namespace ingot::codegen
