// Hoist guards: a guard that does not depend on a serial loop moves out of it (loop unswitching
// of guarded stores), so that a conv whose border rows the schedule left tested
// (rules/direct_conv.h) tests each kernel row once per output row rather than each output
// element, the loops the row form had:
// - a serial loop whose body is one guarded store, B[idx] = select(c, v, B[idx]) (a store that
//   keeps B where c is false): the terms of c that use neither the loop var nor a buffer become
//   an if around the loop, the store keeps the others (or stores v);
// - consecutive ifs without else with equal conditions in a sequence: one if around their
//   bodies.
// Skipping a guarded store where its guard is false skips a store of the value it loads, so the
// result is the same. Other ifs stay where they are (a tile's tail mask, the block predicate
// lower_blocks places innermost: hoisting those measured no faster, lower_blocks.cpp).
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

Stmt hoist_guards(const Stmt& s);
PrimFunc hoist_guards(PrimFunc f);

}  // namespace ingot::tir
