// Default schedule of the blocked direct convolution (rule blocked_conv2d), the NCHWc form TVM
// and oneDNN use on CPUs, as lowering describes it (lower/compute/blocked_conv.h):
//   Y[n, ob, o..., r] = bias[ob * NR + r] + sum over the input channels and the window of
//                       X[n, <input block>, o * s + k * d ..., <lane>] * W[ob * NR + r, c, k...]
// on a channel-blocked (ConvNCHWc) or NCHW input, Y with channels blocked by NR (a multiple of
// the vector width). The rule first gives the constant weights the layout its micro-kernel
// streams, Wp[ceil(OC / NR), ICb, k..., IB, NR] (conv_weight_layout.h: transform_layout, zero
// padded, re-laid out at compile time).
//
// The schedule: parallel over (n, ob, oh); output columns in MR-pixel strips; the MR x NR tile
// with all of its reduction (ic, kh, kw) is one block computed by the FMA register-tile
// micro-kernel, which broadcasts input pixels and streams the packed weights; the init (bias)
// is vectorized before it.
//
// Its choices are sampling instructions (rules/choice.h; defaults as described): the strip
// height (half the register limit up to the limit), the K slice of the first reduction loop (none,
// or a half, quarter or eighth of it), and, unsliced, how many chunks the strips of a row split
// into for the parallel loop.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "support/channel_block.h"

namespace ingot::schedule {

// The channel blocks this rule tiles by on that ISA (its register tile's NR; the graph pass
// layout_nchwc lays tensors out in them, lowering blocks an NCHW conv's output by them).
ChannelBlockPolicy conv_channel_blocks(const CpuVectorIsa& isa);

// Applies the default schedule to block `block` of a blocked convolution
// (lower/compute/blocked_conv.h; any number of spatial dims: strips run along the innermost
// output dim, the outer ones join the parallel loop): first the weights' layout
// (conv_weight_layout.h), then the FMA micro-kernel of the ISA, with output strips of at most
// fma_max_tile_rows(isa, NR) pixels. A kernel whose weights come packed (the tests' fixture,
// tests/common/packed_conv.h) is scheduled as it is.
void schedule_blocked_conv2d(Schedule& s, const std::string& block, const CpuVectorIsa& isa);
// With `int8_group`, the group of an 8-bit conv's uint8 input lanes per product (4 where the
// target multiplies uint8 x int8 quads, RuleTarget::int8_quads; 2 otherwise; an int8 input
// always takes 2): the input lanes split by it, the weights laid out by
// lay_out_dot_conv_weights, the tile the 8-bit dot tile (x86_fma.h, FmaTileSpec::group), the
// requantizing epilogue after each strip. Without it, 2. A conv of bfloat16 products takes the
// same path with pairs (the bfloat16 dot tile, FmaTileSpec::bf16); its sums, when they are a
// scratch parameter (a bfloat16 output), stay local to each strip as the 8-bit conv's.
// With `tiles`, the products the target multiplies on AMX tiles: a uint8 x int8 conv (G = 4)
// or a conv of bfloat16 products takes the AMX form of its dot tile (FmaTileSpec::amx: strips
// of 16 or 32 pixels, one output block per tile) where its layout fits them.
struct ConvTiles {
  bool amx_int8 = false;
  bool amx_bf16 = false;
};
void schedule_blocked_conv2d(Schedule& s, const std::string& block, const CpuVectorIsa& isa,
                             int int8_group, ConvTiles tiles = {});
// The same for x86 with that vector width.
void schedule_blocked_conv2d(Schedule& s, const std::string& block, int vector_bits);

}  // namespace ingot::schedule
