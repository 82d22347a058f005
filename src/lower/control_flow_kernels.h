// The small kernels of control flow (If, Loop, Scan) that the entry program runs around the
// bodies' kernels: the loop counter and its continue flag, and the per-iteration slicing of scan
// inputs and stacking of scan outputs. The iteration number lives in a workspace int64 scalar,
// the flags in workspace bytes (bool) that the entry's branches read.
#pragma once

#include "tir/buffer.h"
#include "tir/prim_func.h"

namespace ingot::lower {

// The trip count of a loop: the scalar M when `m` is defined (a Loop's), else `limit` when
// defined (a Scan's length, an expression of the symbols), else none (a Loop run by cond).
struct TripCount {
  tir::Buffer m;
  tir::Expr limit;
};

// iter = 0; cond_state = cond (true when `cond` is undefined); keep = 0 < trips && cond_state.
tir::PrimFunc loop_init_kernel(const TripCount& trips, const tir::Buffer& cond,
                               const tir::Buffer& iter, const tir::Buffer& cond_state,
                               const tir::Buffer& keep);

// iter += 1; keep = iter < trips && cond_state.
tir::PrimFunc loop_step_kernel(const tir::Buffer& iter, const TripCount& trips,
                               const tir::Buffer& cond_state, const tir::Buffer& keep);

// The geometry of a tensor read or written one slice per iteration: [outer, length, inner] with
// the iteration axis in the middle, walked backwards when `reverse`.
struct ScanAxis {
  tir::Expr outer, length, inner;
  bool reverse = false;
};

// slice (flat [outer * inner]) = whole (flat [outer * length * inner]) at the iteration's index.
tir::PrimFunc scan_slice_kernel(const tir::Buffer& whole, const tir::Buffer& iter,
                                const tir::Buffer& slice, const ScanAxis& axis);

// whole at the iteration's index = slice (the stacking of a scan output).
tir::PrimFunc scan_stack_kernel(const tir::Buffer& slice, const tir::Buffer& iter,
                                const tir::Buffer& whole, const ScanAxis& axis);

}  // namespace ingot::lower
