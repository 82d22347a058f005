// Rule row_product (the c target, and the llvm target's products its other rules do not take): a
// product as lowering describes it on every target
// (lower/compute/matmul_block.cpp, compute_product_block: block "matmul" at the root over
// [batch dims..,] i, j and a reduce k, with its init) run in row order, the loop order the C
// compiler of a small target does best with:
//   [batch..,] i | init of the row (j) | k | j
// so the innermost loop is a contiguous multiply-accumulate along the output row and B's row
// (which the C compiler vectorizes for its -mcpu; a microcontroller runs it as is), and the
// kernel's epilogue pass (its fused bias, summand, activation) right after each row while it is
// in cache (reverse_compute_at). Fusion's intermediates are inlined first, as the c target's
// injective rule does. On the c target every loop stays serial (one core); given a CPU ISA (the
// llvm target) the batch dims and rows are fused into one parallel loop (how many of them: a
// sampling instruction), and LLVM's loop vectorizer takes the contiguous loops along j.
#pragma once

#include <optional>

#include "schedule/schedule.h"
#include "support/channel_block.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

// Its pattern: block "matmul" at the root, its last iter var the one reduction, each bound to
// its own loop, with an init.
bool is_block_product(const tir::PrimFunc& f);

void schedule_row_product(Schedule& s, const std::optional<CpuVectorIsa>& isa = std::nullopt);

}  // namespace ingot::schedule
