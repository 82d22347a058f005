// Rule direct_conv (the c target, and the llvm target's NCHW convs that layout_nchwc leaves:
// runtime weights, groups that are not whole channel blocks, ...): the 1-D or 2-D convolution
// lowering describes on every target (lower/compute/conv_block.cpp: block "conv" over
// [n, oh] (dims of extent > 1), i = output channel, j = output column and one reduce k over (the
// group's input channel, the window), the padding a guard on its update) run as a direct
// convolution in row order, the loops a hand-written one for a microcontroller has:
//   [n,] i, oh | init of the row (j) | c, kh, kw | j
// k is split into its input channel and taps (split_block_iter), so the innermost loop is a
// multiply-accumulate along the output row with one weight (which the C compiler vectorizes
// for its -mcpu, as LLVM does on the llvm target). The guard is partitioned away
// (conv_guard.h): in every row part each kernel column becomes its own loop over the output
// columns that it reads inside the input, the others removed; the rows either go the same way
// (the llvm target's default: the interior rows and each border row alone, its kernel rows cut
// to those inside the input; past kMaxBorderRows, runs of border rows keep their row test), so
// no part tests the padding at run time, or (the c target's default: one copy of the loops, the
// code a microcontroller's flash holds) keep their row test, which the loop pass hoist_guards
// (tir/transforms/hoist_guards.h) lifts out of the column loops to one test per kernel row.
// Which of the two: a sampling instruction. The kernel's epilogue pass (its fused summand,
// activation) runs after each row while it is in cache (reverse_compute_at); fusion's intermediates
// are inlined first. On the c target every loop stays serial (one core); on the llvm target the
// [n,] i loops are fused into one parallel loop (how many of them: a sampling instruction).
#pragma once

#include <optional>

#include "schedule/schedule.h"
#include "support/channel_block.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

inline constexpr const char* kDirectConvRule = "direct_conv";

// Its pattern: block "conv" at the root over [n, oh,] i, j and a reduce k, each bound to its own
// loop, with an init, storing Y[n, i, (oh,) j] and reading a weight W[i, ...] of Y's rank.
bool is_direct_conv(const tir::PrimFunc& f);

void schedule_direct_conv(Schedule& s, const std::optional<CpuVectorIsa>& isa = std::nullopt);

}  // namespace ingot::schedule
