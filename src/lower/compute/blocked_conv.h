// The block-form computes of the CPU's convolutions on channel-blocked outputs: what is computed,
// over the tensors and weights as the graph has them. Every layout of the weights (output-channel
// panels, input blocks, the order the micro-kernel streams them) is the rule's decision
// (schedule/rules/conv2d.h: transform_layout on the constant), so the weights here are the
// node's own, W[OC, IC / groups, k...], read with guards where a block runs past OC or IC (the
// rule's zero-padded layout makes the guards redundant and drops them).
//
//   Y[n, ob, o..., r] = bias[ob * NR + r]     (0 without a bias or past OC)
//       + sum over the reduction of X[n, <input block>, o * s + k * d ..., <lane>]
//                                   * W[ob * NR + r, <input channel in the group>, k...]
//
// X is the channel-blocked input [n, ceil(IC / IB), in..., IB] (graph op ConvNCHWc, padded
// spatially by the Pad node layout_nchwc puts before it; the reduction runs over input blocks cb,
// the window k..., then lanes ci). Y is [n, ceil(OC / NR), out..., NR]; its padding lanes come
// out zero. With groups, an output block
// reads its group's input blocks (support/channel_block.h: conv_input_blocks); groups narrower
// than the block are lane groups (each lane sums its own group's `width` inputs). With an
// epilogue a second block "epilogue" updates Y in place (the fused summand and activation).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "graph/graph.h"
#include "tir/prim_func.h"

namespace ingot::lower {

struct BlockedConvShape {
  int64_t n = 1, ic = 0, oc = 0;  // ic: all input channels, of every group
  int64_t groups = 1;
  int64_t ib = 1, nr = 16;  // input and output channel blocks
  // Groups narrower than the (equal) input and output blocks: lane r reads its group's inputs,
  // X[.., floor(r / width) * width + ci] for ci < width = ic / groups.
  bool lane_groups = false;
  // Per spatial dim, outermost first (D, H, W): the padded input, the output, the kernel.
  std::vector<int64_t> in, out, kernel, strides, dilations;
  // An 8-bit convolution (QConvNCHWc): X uint8 (int8 with x_signed), W int8, bias int32; the
  // sum accumulates exactly in an int32 scratch parameter `acc` of Y's shape, and the epilogue
  // (required) maps each accumulator to Y's element of type `out_type`. Its input channels and
  // block are multiples of 4 (QConvNCHWc's contract, ops/layout.cpp), so a rule may group the
  // lanes by 2 or 4.
  bool int8 = false;
  bool x_signed = false;
  // bfloat16 products (a ConvNCHWc of bfloat16 X and W): X and W bfloat16, each product of the
  // two widened to float32, summed in float32 with a float32 bias. Groups = 1, input channels
  // and block even (ops/layout.cpp), so a rule may group the lanes by 2.
  bool bf16 = false;
  // The output's type: uint8 / int8 for an 8-bit conv; else float32 (the sums accumulate in Y,
  // the epilogue updates it in place) or bfloat16 (the sums in a float32 scratch parameter
  // `acc`, the epilogue's result rounded into Y, as the 8-bit form's).
  tir::DataType out_type = tir::DataType::f32();
};

using ConvEpilogue =
    std::function<tir::Expr(const tir::Expr& y, const std::vector<tir::Expr>& index)>;

// Params X, W, [bias], [epilogue_params], Y, [acc (int8 or a bfloat16 output: a scratch
// parameter)]; block "conv", then "epilogue".
tir::PrimFunc blocked_conv_compute(const BlockedConvShape& s, bool has_bias,
                                   const ConvEpilogue& epilogue = {},
                                   const std::vector<tir::Buffer>& epilogue_params = {});

// Depthwise 2-D convolution on channel-blocked tensors (ConvNCHWc with groups = channels):
//   Y[n, b, oh, ow, l] = bias[b * BLK + l] + sum over kh, kw of
//       (r, q inside the input ? X[n, b, r, q, l] * W[b * BLK + l, 0, kh, kw] : 0)
//   with r = oh * sh + kh * dh - top, q = ow * sw + kw * dw - left
// on the unpadded input (the padding a guard, the load's indices clamped into the input), W the
// node's [C, 1, KH, KW] read with a guard past C (rule depthwise_conv_nchwc lays it out).
struct DepthwiseConvShape {
  int64_t n = 1, blocks = 1, blk = 16;  // channel blocks of blk lanes
  int64_t ih = 1, iw = 1, oh = 1, ow = 1, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, top = 0, left = 0;
  int64_t channels = 0;  // the real channels
  // An 8-bit depthwise conv (QConvNCHWc): X uint8 (int8 with x_signed) padded explicitly (top =
  // left = 0, so no guard), W int8, bias int32, the int32 sum in a scratch parameter `acc` and
  // the epilogue (required) writing Y of `out_type`, as BlockedConvShape::int8.
  bool int8 = false;
  bool x_signed = false;
  // uint8 / int8 for an 8-bit conv; else float32 (the sums in Y) or bfloat16 (the float32 sums
  // in a scratch `acc`, the epilogue's result rounded into Y: --dtype bfloat16's depthwise conv
  // feeding a conv of bfloat16 products).
  tir::DataType out_type = tir::DataType::f32();
};

// Params X, W, [bias], [epilogue_params], Y, [acc (int8: a scratch parameter)]; blocks "conv"
// and [epilogue].
tir::PrimFunc depthwise_conv_compute(const DepthwiseConvShape& s, bool has_bias,
                                     const ConvEpilogue& epilogue = {},
                                     const std::vector<tir::Buffer>& epilogue_params = {});

// The compute of a ConvNCHWc node (conv_nchwc.cpp): a depthwise one (2-D) the depthwise compute
// on its unpadded input, any other the blocked direct convolution over its already padded input
// (a pointwise conv over the row-major view of all its pixels as one row, so that register
// strips run along all of them); the node's fused summand and activation the epilogue block.
// Params X, W, [bias], [Z], Y: the node's inputs, then its output.
tir::PrimFunc conv_nchwc_compute(const graph::Node& node);

}  // namespace ingot::lower
