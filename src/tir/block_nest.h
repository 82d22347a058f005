// Block-form nests as computes build them: a block realized under one serial loop per iter var,
// an in-place block over a nest's leading spatial iter vars appended after a function's body (a
// fused epilogue that a rule places with reverse_compute_at), the root block around a body, and
// one buffer put for another (lowering and the schedule primitives alike).
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

// The root wrapper: BlockRealize of block "root" (no iter vars, no regions) around body.
Stmt make_root(Stmt body, std::vector<Buffer> alloc = {});

// Replaces every access to `from` (loads, stores, regions, allocations) by `to` within s.
Stmt replace_buffer(const Stmt& s, const Buffer& from, const Buffer& to);

}  // namespace ingot::tir
