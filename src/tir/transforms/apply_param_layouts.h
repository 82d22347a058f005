// After scheduling, what the schedules decided about memory reaches the module:
// - a constant parameter a schedule gave a tiled layout (Schedule::transform_layout) is bound
//   to a copy of its constant in that layout (made once per constant and layout; constants no
//   call reads any more leave the blob);
// - scratch parameters a schedule added (cache_read into "global") are bound to a scratch region
//   past the workspace arena's planned intermediates, shared by all kernels (one call's lifetime
//   each, and calls never overlap), sized by the kernel that needs most.
// Idempotent: a kernel's layouts and scratch parameters are applied once (its calls then have
// an argument per parameter and its layouts are cleared).
#pragma once

#include "tir/module.h"

namespace ingot::tir {

void apply_param_layouts(IRModule& mod);

}  // namespace ingot::tir
