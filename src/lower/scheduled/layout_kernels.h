// Helpers shared by the scheduled-kernel builders of lower/scheduled/: float32 constants and
// buffers, and the zero-padding kernel that runs before a convolution.
#pragma once

#include <string>
#include <vector>

#include "graph/tensor.h"
#include "tir/prim_func.h"

namespace ingot::lower {

graph::TensorPtr f32_tensor(std::vector<int64_t> shape, const std::vector<float>& data);
tir::Buffer f32_buffer(const std::string& name, const std::vector<int64_t>& shape);
// Xp[i...] = X[i... - before] inside, 0 outside (xs -> ps, any rank >= 2; `before`: the
// leading pad of each dim).
tir::PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps,
                         const std::vector<int64_t>& before);
// Xp[n, c, h, w] = X[n, c, h - top, w - left] inside, 0 outside (NCHW, xs -> ps).
tir::PrimFunc pad_kernel(const std::vector<int64_t>& xs, const std::vector<int64_t>& ps,
                         int64_t top, int64_t left);

}  // namespace ingot::lower
