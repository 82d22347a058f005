// Depthwise 2-D convolution on channel-blocked tensors (ConvNCHWc with groups = channels; the
// MobileNet / EfficientNet / ConvNeXt layers): the default schedule (rule depthwise_conv_nchwc)
// of the block-form compute lowering describes (lower/compute/blocked_conv.h):
//   Y[n, b, oh, ow, l] = bias[b * BLK + l] + sum over kh, kw of
//       (r, q inside the input ? X[n, b, r, q, l] * W[b * BLK + l, 0, kh, kw] : 0)
//   with r = oh * sh + kh * dh - top, q = ow * sw + kw * dw - left
// on the unpadded input: the padding is a guard (the load's indices are clamped, so no guard is
// ever needed for memory safety), not a padded copy, which would cost a depthwise conv (a few
// FLOPs per byte) another pass over its input. With `epilogue`, a second block "epilogue"
// updates Y in place (the fused summand and activation).
//
// The schedule lays the weights out as [ceil(C / BLK), 1, KH, KW, BLK] (conv_weight_layout.h),
// then partitions the guard away instead of evaluating it: the output rows (as branches
// of the one row loop, which stays parallel with the channel blocks) into the interior rows and
// each border row alone, each border row's kernel rows to those inside the input, and each
// row's columns into left border, interior and right border. Interior columns run as register
// tiles of R columns x the block's vectors on the FMA micro-kernel in its elementwise form (one
// weight vector per tap shared by R independent accumulator chains); border columns are
// unrolled with their kernel columns inside one loop over the channel block, so the column
// guards fold at compile time. (Past 6 border rows, or more than half the interior rows, runs
// of border rows keep their row test.)
// The epilogue runs per output row while it is in L1. Tunable (sampling instructions with these
// choices as defaults, rules/choice.h): the register tile's width in each row part.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"
#include "support/channel_block.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

inline constexpr const char* kDepthwiseConvRule = "depthwise_conv_nchwc";  // block "conv"

// Whether `f` has a block "conv" of that form (its body Y = select(inside, Y + X * W, Y) over
// n, b, oh, ow, l and the window): the rule's pattern.
bool is_depthwise_conv_nchwc(const tir::PrimFunc& f);

// The default schedule of block "conv" of such a function (see above).
void schedule_depthwise_conv_nchwc(Schedule& s, const CpuVectorIsa& isa);

}  // namespace ingot::schedule
