// Kernels for the ops that have a default schedule rule (schedule/rules/): instead of a loop
// nest from the op's compute rule, the node becomes one block-form kernel that the rule's
// pattern matches, plus any layout kernels around it (padding, blocked-to-NCHW). Each builder
// returns nullopt when the node does not qualify (non-constant weights, other dtypes, groups,
// ...); the node then falls back to its compute rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "support/channel_block.h"
#include "tir/prim_func.h"

namespace ingot::lower {

// A kernel for a node: the function and the value bound to each of its parameters.
struct NodeKernel {
  tir::PrimFunc func;
  std::vector<const graph::Value*> args;
  // The node's main kernel (named after the node, carries its FLOPs); kernels tagged with a
  // schedule rule are main kernels too.
  bool main = false;
};

// Fresh values a builder may create: packed constants and intermediate tensors (planned in the
// workspace like any other intermediate).
class ValueFactory {
 public:
  virtual ~ValueFactory() = default;
  virtual const graph::Value* constant(const std::string& name, graph::TensorPtr data) = 0;
  virtual const graph::Value* temporary(const std::string& name, graph::DType dtype,
                                        const std::vector<int64_t>& shape) = 0;
};

// 2-D Conv with groups = 1 and constant weights (and bias): [pad] -> blocked direct
// convolution (rule blocked_conv2d) -> blocked-to-NCHW copy.
std::optional<std::vector<NodeKernel>> lower_blocked_conv2d(const graph::Node& node,
                                                            const ChannelBlockPolicy& blocks,
                                                            ValueFactory& values);

// Depthwise 2-D Conv (groups = channels, one output channel each, constant weights): [pad] ->
// a loop nest scheduled by construction (planes in parallel, columns vectorized, taps unrolled).
std::optional<std::vector<NodeKernel>> lower_depthwise_conv2d(const graph::Node& node,
                                                              ValueFactory& values);

// ConvNCHWc (graph pass layout_nchwc; blocked input, summand and output): groups = 1 or grouped
// (1 to 3 spatial dims) -> [pad] -> the blocked direct convolution over the node's weights with
// its epilogue (lower/compute/blocked_conv.h; rule blocked_conv2d); depthwise (2-D) ->
// lower_depthwise_nchwc.
std::optional<std::vector<NodeKernel>> lower_conv_nchwc(const graph::Node& node,
                                                        ValueFactory& values);

// Depthwise 2-D ConvNCHWc: the block-form compute on the unpadded input scheduled by rule
// depthwise_conv_nchwc (depthwise_nchwc.cpp).
std::vector<NodeKernel> lower_depthwise_nchwc(const graph::Node& node);

}  // namespace ingot::lower
