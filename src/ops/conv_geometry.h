// Internal: the sliding-window geometry shared by Conv and the pools: fills kernel_shape,
// strides, dilations and explicit pads (resolving auto_pad) and computes the output spatial dims.
#pragma once

#include <vector>

#include "ops/shape_util.h"

namespace ingot::ops::detail {

// x: the input type [N, C, spatial...]. kernel: the kernel spatial extent. Normalises
// n.attrs (kernel_shape, strides, dilations, pads; auto_pad removed) and returns the output
// spatial dims. ceil_mode only for pools.
std::vector<Dim> window_output_dims(Node& n, const TensorType& x,
                                    const std::vector<int64_t>& kernel, bool ceil_mode);

}  // namespace ingot::ops::detail
