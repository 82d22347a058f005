// convert_bfloat16_convs (`ingot compile --dtype bfloat16` on CPU targets, after layout_nchwc
// and winograd_conv): the channel-blocked convolutions' products in bfloat16 with float32
// accumulation, as convert_bfloat16 does for MatMul / Gemm. Each float32 ConvNCHWc of groups = 1
// whose input block is even (the bfloat16 dot tile takes pairs of input lanes) reads its weights
// stored as bfloat16 (half the bytes; zero input channels added up to a pair within one block or
// to whole blocks, so that MobileNetV2's 144 channels in blocks of 32 read 160, the padding
// lanes, finite, against zeros) and its blocked input through a Cast to
// bfloat16 (one per value, shared; an explicit zero Pad that layout_nchwc put before the conv
// moves after the Cast, so it pads half the bytes); its bias, fused summand and activation stay
// float32. A ConvNCHWc whose every reader is such a Cast (a conv that only feeds converted
// convs: a ResNet bottleneck's first two) writes bfloat16 itself (`out_dtype`, its epilogue's
// result rounded to nearest even) and the Casts go. A conv over an image of an odd channel count
// (a stem's 3 channels, in one block of 3 lanes) reads it cast to bfloat16 before its conversion
// to blocks, in one block of 4 lanes (the last zero), and its weights get a zero input channel.
// Depthwise and grouped convs stay float32. The caller infers the types again.
#pragma once

#include "graph/graph.h"
#include "graph/transforms/convert_bfloat16.h"

namespace ingot::graph {

// `products` counts the convs converted, `constants` / `constant_bytes_saved` their weights.
BFloat16Stats convert_bfloat16_convs(Graph& g);

}  // namespace ingot::graph
