// Internal: the sliding-window geometry shared by Conv and the pools: fills kernel_shape,
// strides, dilations and explicit pads (resolving auto_pad) and computes the output spatial dims.
#pragma once

#include <vector>

#include "ops/op.h"
#include "ops/shape_util.h"

namespace ingot::ops::detail {

// Attribute `name` as one value per spatial dim (default `def` each), each at least min_value;
// UserError naming the node otherwise.
std::vector<int64_t> ints_of_rank(const Node& n, const char* name, size_t rank, int64_t def,
                                  int64_t min_value);

// x: the input type [N, C, spatial...]. kernel: the kernel spatial extent. Normalises
// n.attrs (kernel_shape, strides, dilations, pads; auto_pad removed) and returns the output
// spatial dims. ceil_mode only for pools.
std::vector<Dim> window_output_dims(Node& n, const TensorType& x,
                                    const std::vector<int64_t>& kernel, bool ceil_mode);

// Conv / ConvTranspose operand checks (same dtype, W of rank 3..5, X of W's rank) and the
// `group` attribute (>= 1), returned; UserErrors naming the node.
int64_t check_conv_operands(const Node& n, const TensorType& x, const TensorType& w);

// The attribute schema of a convolution: group, the window attributes (kernel_shape, strides,
// dilations, pads, auto_pad) and the fused epilogue (activation, activation_params); `extra`
// appended (Conv, ConvNCHWc).
std::vector<AttrSpec> conv_attr_specs(std::vector<AttrSpec> extra = {});

}  // namespace ingot::ops::detail
