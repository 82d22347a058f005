// layout_nchwc: CPU convolutions on channel-blocked tensors (NCHW[c]c, TVM's and oneDNN's
// NCHWc), in the blocks the target's convolution rules tile by (support/channel_block.h:
// ChannelBlockPolicy, which the schedule layer gives; the pass never reads the vector width).
// Every 1-D to 3-D float32 Conv with constant weights (and bias) and groups = 1, grouped in
// whole blocks (support/channel_block.h: grouped_conv_blocks), or 2-D depthwise, becomes
// ConvNCHWc reading and writing blocked tensors (its fused summand blocked too; a direct conv's
// padding becomes an explicit zero Pad of the blocked input's spatial dims, a depthwise conv
// keeps its pads); a LayoutToBlocked is inserted where a blocked operand comes from an NCHW
// producer and a LayoutFromBlocked where an NCHW consumer (any other op, a graph output) reads a
// blocked result. Conversions cancel: a conv reading another conv's output takes the blocked value
// directly, so a chain of convs (ResNet, MobileNet, R3D) runs blocked from its first to its last
// conv, and the unused LayoutFromBlocked nodes are left for dead_code. Elementwise ops finite at 0
// (Add, Mul, Relu, Clip, the epilogue activations such as Swish) whose operand is a blocked conv
// result run blocked too when every other operand has the output's shape, is per channel ([N, C, 1,
// ...]: a squeeze-excite gate) or is a scalar, and so does global pooling (a reduction over the
// blocked spatial axes), so they do not break a blocked chain. 2-D MaxPool and AveragePool of a
// blocked value become MaxPoolNCHWc / AveragePoolNCHWc on the blocks, and a channel Concat stays
// blocked (a concat of the C/c axis) when every input's channel count is a multiple of one block c
// that at least one blocked input has (the others are converted to it), so Inception / SqueezeNet /
// DenseNet branches need no conversions. A groups = 1 conv's output block is the policy's default,
// or the block a layout plan (ChannelBlockPolicy::planned, `ingot tune`'s choice per class of
// layout_plan.h) gives it. Blocked padding lanes hold finite values (zeros); the packed weights are
// zero there. It runs only with default schedules (ConvNCHWc has no loop-nest rule).
#pragma once

#include <cstdint>

#include "graph/graph.h"
#include "support/channel_block.h"

namespace ingot::graph {

// The largest window (kernel height x width) pooled blocked: the blocked rule unrolls its taps.
inline constexpr int64_t kMaxBlockedPoolTaps = 64;

void convert_layout_nchwc(Graph& g, const ChannelBlockPolicy& blocks);

// What the pass converts (layout_plan.cpp reads the same rules): a Conv the blocked kernels
// implement (f32, constant weights, 1 to 3 spatial dims, groups = 1, grouped in whole blocks
// or 2-D depthwise, static shapes); a depthwise Conv (one output channel per input channel); an
// elementwise op that runs on blocked tensors (finite at 0: its padding lanes stay finite).
bool blockable_conv(const Node& n, const ChannelBlockPolicy& blocks);
bool depthwise_conv(const Node& n);
// A ConvNCHWc / QConvNCHWc that is depthwise: W [C, 1, k...] with groups = C.
bool depthwise_conv_nchwc(const Node& n);
bool blockable_elementwise(const Node& n);

}  // namespace ingot::graph
