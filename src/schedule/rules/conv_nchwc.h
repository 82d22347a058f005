// The blocked direct convolution on a channel-blocked input (graph op ConvNCHWc, groups = 1) for
// 1, 2 or 3 spatial dims, scheduled by the blocked_conv2d rule (conv2d.h):
//   Y[n, ocb, o..., r] = bias[ocb * NR + r]
//       + sum over icb, k..., ici of X[n, icb, o * s + k * d ..., ici] * Wp[ocb, icb, k..., ici, r]
// where o... are the output's spatial dims (od, oh, ow; the register tile runs along the
// innermost, ow) and k... the kernel's (kd, kh, kw). X[n, ceil(IC / IB), in..., IB] is padded
// spatially; Wp is packed by pack_conv_weights_nchwc (zero for the padding input lanes, so
// whatever finite values they hold do not count; with a single input block the reduction covers
// only the IC real lanes); Y is [n, ceil(OC / NR), out..., NR]. With groups > 1 the reduction
// runs over the input blocks of the output block's groups (conv_input_blocks):
// X[n, first(ocb) + icb, ...] with Wp[ocb, icb, k..., ici, r] zero across groups.
// With `epilogue`, a second block "epilogue" updates Y in place, Y = epilogue(Y, index) (the
// fused summand and activation; its extra buffers go in `epilogue_params`, after X, Wp, bias and
// before Y); the schedule computes it per output strip right after the tile.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "schedule/rules/conv2d.h"

namespace ingot::schedule {

struct ConvNchwcShape {
  int64_t n = 1, ic = 0, oc = 0;  // ic: all input channels, of every group
  int64_t groups = 1;             // > 1: see conv_input_blocks (support/channel_block.h)
  // Groups narrower than the (equal) input and output blocks, `width` = ic / groups channels
  // each: output lane r sums only over its group's inputs, X[n, ocb, ..., floor(r / width) *
  // width + ici] * Wp[ocb, 0, k..., ici, r] for ici < width (no block-diagonal zeros).
  bool lane_groups = false;
  // Per spatial dim, outermost first (D, H, W): the padded input, the output, the kernel.
  std::vector<int64_t> in, out, kernel, strides, dilations;
};

using ConvEpilogue =
    std::function<tir::Expr(const tir::Expr& y, const std::vector<tir::Expr>& index)>;

// The function (params X, Wp, bias, [epilogue_params], Y; block "conv", then "epilogue").
BlockedConv2d make_blocked_conv_nchwc(const ConvNchwcShape& s, int ib, int nr,
                                      const ConvEpilogue& epilogue = {},
                                      const std::vector<tir::Buffer>& epilogue_params = {});

// Shared by the conv computes: the loop nest (one serial loop per iter var, in order) around a
// block, and the in-place epilogue block "epilogue" over the first `spatial` iter vars (its
// buffers appended to f's params).
tir::Stmt block_loop_nest(const std::vector<tir::Var>& loops, const std::vector<tir::IterVar>& ivs,
                          tir::Stmt blk);
void append_conv_epilogue(tir::PrimFunc& f, const tir::Buffer& y,
                          const std::vector<tir::Var>& loops, const std::vector<tir::IterVar>& ivs,
                          size_t spatial, const ConvEpilogue& epilogue,
                          const std::vector<tir::Buffer>& params);

// Host packing: W[OC, IC / groups, k...] -> Wp[ceil(OC / nr), ICb, k..., ib, nr] (ICb: all
// input blocks, or with groups those an output block reads), zero padded and across groups;
// with lane groups Wp[ceil(OC / nr), 1, k..., width, nr].
std::vector<float> pack_conv_weights_nchwc(const float* w, const ConvNchwcShape& s, int ib, int nr);

}  // namespace ingot::schedule
