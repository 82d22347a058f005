// Default schedule for 2-D convolution (groups = 1, FP32) as a direct convolution on a blocked
// output layout, the NCHWc form TVM and oneDNN use on CPUs:
//   Y[n, ocb, oh, ow, r] = bias[ocb * NR + r]
//                        + sum over ic, kh, kw of X[n, ic, oh*sh + kh*dh, ow*sw + kw*dw]
//                                                 * Wp[ocb, ic, kh, kw, r]
// X is the (already padded) NCHW input, Wp the weights packed at compile time in NR-wide output
// channel blocks (zero padded), Y the output with channels blocked by NR (NR = the micro-kernel's
// column count, a multiple of the vector width).
//
// The schedule: parallel over (n, ocb, oh); output columns in MR-pixel strips; the MR x NR tile
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

struct Conv2dShape {
  int64_t n = 1, ic = 0, ih = 0, iw = 0;  // the padded input
  int64_t oc = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
};

struct BlockedConv2d {
  tir::Buffer X, Wp, bias, Y;  // X[n, ic, ih, iw], Wp[ocb, ic, kh, kw, nr], bias[ocb * nr],
                               // Y[n, ocb, oh, ow, nr]
  int nr = 0;
  tir::PrimFunc func;  // params X, Wp, bias, Y; one block "conv"
};

// The output channel block (the tile's columns): 32 (two zmm) when OC allows, else 16, else OC
// rounded up to the vector width; for AVX2 and 128-bit targets (NEON: 4 or 2 q registers) 16 / 8.
int conv2d_channel_block(const Conv2dShape& s, int vector_bits);

BlockedConv2d make_blocked_conv2d(const Conv2dShape& s, int nr);

// The same convolution on a channel-blocked input, for 1 to 3 spatial dims: conv_nchwc.h.

// Host packing: W[OC, IC, KH, KW] -> Wp[ceil(OC / nr), IC, KH, KW, nr] (zero padded), and a
// bias (or zeros) -> [ceil(OC / nr) * nr].
std::vector<float> pack_conv2d_weights(const float* w, const Conv2dShape& s, int nr);
std::vector<float> pack_conv2d_bias(const float* bias, const Conv2dShape& s, int nr);

// Applies the default schedule to block `block` of a make_blocked_conv2d or
// make_blocked_conv_nchwc function (any number of spatial dims: strips run along the innermost
// output dim, the outer ones join the parallel loop): the FMA micro-kernel of the ISA, with
// output strips of at most fma_max_tile_rows(isa, NR) pixels.
void schedule_blocked_conv2d(Schedule& s, const std::string& block, const CpuVectorIsa& isa);
// The same for x86 with that vector width.
void schedule_blocked_conv2d(Schedule& s, const std::string& block, int vector_bits);

}  // namespace ingot::schedule
