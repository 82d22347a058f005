// Kernels for the ops that have a default schedule rule (schedule/rules/): instead of a loop
// nest from the op's compute rule, the node becomes one block-form kernel that the rule's
// pattern matches, plus any layout kernels around it (padding, blocked-to-NCHW). (The symbolic
// products below still pack their constant B here.) Each builder returns
// nullopt when the node does not qualify (non-constant weights, other dtypes, groups, ...);
// the node then falls back to its compute rule.
#pragma once

#include <functional>
#include <optional>
#include <set>
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

// MatMul / Gemm with a symbolic output and a constant float32 B: B stored in the symbolic
// product's column blocks (blocked_product.cpp). `buffer_of` gives the kernel parameter of a
// graph value (with its symbolic shape); `blocked_of(b, transposed)` the blocked constant of B
// (made once per weight: a tied embedding's Gather reads the same one).
using BlockedWeightFn = std::function<const graph::Value*(const graph::Value*, bool)>;
std::optional<std::vector<NodeKernel>> lower_blocked_symbolic_product(
    const graph::Node& node, const BlockedWeightFn& blocked_of,
    const std::function<tir::Buffer(const graph::Value*)>& buffer_of);

// Whether lower_blocked_symbolic_product takes `node` (whatever else reads its B), and then
// whether it reads B transposed (perm_b / transB).
std::optional<bool> blocked_product_transposes(const graph::Node& node);

// B ([K, N], or [N, K] transposed) in the column blocks [ceil(N / 64), K, 64], zero-padded.
graph::TensorPtr block_columns(const graph::Value* b, bool transposed);

// The constant tables of `g` read by Gathers along axis 0 and, transposed, by one symbolic
// product that lower_blocked_symbolic_product takes (a tied embedding): stored once, blocked.
std::set<const graph::Value*> tied_tables(const graph::Graph& g);

// A Gather along axis 0 of a constant [V, K] table whose transposed blocked layout `blocked`
// ([ceil(V / 64), K, 64]) a tied product reads: each gathered row read from the blocks, so the
// table is stored once (GPT-2's token embedding and LM head).
std::vector<NodeKernel> lower_blocked_gather(
    const graph::Node& node, const graph::Value* blocked,
    const std::function<tir::Buffer(const graph::Value*)>& buffer_of);

}  // namespace ingot::lower
