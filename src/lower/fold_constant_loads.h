// Loads of small constant tensors at constant indices become literals in a kernel body (a
// Gather's constant index, a scalar scale, Clip bounds), so the simplifier can fold what
// depends on them (select(k < 0, k + n, k) -> k) and the kernel reads no memory for them.
#pragma once

#include <map>

#include "graph/tensor.h"
#include "tir/stmt.h"

namespace ingot::lower {

// Tensors of at most this many elements are folded.
inline constexpr int64_t kMaxFoldedConstantElements = 64;

tir::Stmt fold_constant_loads(const tir::Stmt& body,
                              const std::map<const tir::BufferNode*, graph::TensorPtr>& constants);

}  // namespace ingot::lower
