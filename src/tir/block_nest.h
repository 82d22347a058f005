// Block-form nests as computes build them: a block realized under one serial loop per iter var,
// and an in-place block over a nest's leading spatial iter vars appended after a function's
// body (a fused epilogue that a rule places with reverse_compute_at).
#pragma once

#include <functional>
#include <vector>

#include "tir/prim_func.h"
#include "tir/stmt.h"

namespace ingot::tir {

// `blk` realized at `loops` (one per iter var of `ivs`, in order), each a serial loop over its
// iter var's extent.
Stmt block_loop_nest(const std::vector<Var>& loops, const std::vector<IterVar>& ivs, Stmt blk);

// Appends to f's body a block `name` over the first `spatial` iter vars of `ivs` (fresh vars,
// loops named as `loops`) storing y[idx] = update(y[idx], idx) in place, and appends `params`
// to f's parameters.
using InPlaceUpdate = std::function<Expr(const Expr& y, const std::vector<Expr>& index)>;
void append_in_place_block(PrimFunc& f, const std::string& name, const Buffer& y,
                           const std::vector<Var>& loops, const std::vector<IterVar>& ivs,
                           size_t spatial, const InPlaceUpdate& update,
                           const std::vector<Buffer>& params);

}  // namespace ingot::tir
