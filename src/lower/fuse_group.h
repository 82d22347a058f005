// Fused groups (graph::fuse_ops): which intermediate tensors of a group the schedule computes
// where they are used, so lowering makes them the kernel's own (allocated at its root) instead of
// tensors in the workspace. The schedule does the inlining (schedule/rules/nest_utils.h
// inline_intermediates):
//  - compute_inline: a producer that is a single elementwise store (`for i.. : T[i..] = f(i..)`)
//    is removed and every load T[j..] in later blocks becomes f(j..);
//  - reverse_compute_inline: a producer that stores T exactly once (a reduction's final store)
//    and whose only reader is the group's anchor, an elementwise block over T's shape reading T
//    at its own index (directly, or through elementwise intermediates that compute_inline moves
//    into it): its store becomes the anchor's store of g(value).
// A producer that fits neither is kept as a nest writing its tensor (the caller makes that
// tensor a kernel parameter). Inlining recomputes a producer once per load of its output.
// Also here: the helpers that evaluate an activation's compute rule on one value
// (compute/epilogue.cpp).
#pragma once

#include <optional>
#include <vector>

#include "tir/stmt.h"

namespace ingot::lower {

// The body of a single-store loop nest: per output dim the loop variable (or the constant 0
// of an extent-1 dim), and the stored value.
struct ElementwiseStore {
  std::vector<tir::Expr> indices;
  tir::Expr value;
};

// `s` as a perfect loop nest over `buf`'s shape ending in one store to `buf` (directly, or as
// the body of a block whose iter vars are bound to the loops), or nullopt. The result is in
// terms of the loop variables.
std::optional<ElementwiseStore> match_elementwise_store(const tir::Stmt& s, const tir::Buffer& buf);

// Whether `s` is a nest of loops around one block that the schedule's compute_inline can remove:
// a spatial block with no init or allocations whose body is one store to `buf` at distinct iter
// vars spanning `buf`'s dims (an extent-1 dim may be indexed 0), its value not reading `buf`.
// The iter vars may be bound to any expressions of the loops (a layout conversion's
// c = cb * B + l) and the realize may have a predicate.
bool is_inlinable_block_nest(const tir::Stmt& s, const tir::Buffer& buf);

// Whether `s` loads from `buf`.
bool reads_buffer(const tir::Stmt& s, const tir::Buffer& buf);

// `s` with each load of `buf` replaced by `store`'s value at the load's indices.
tir::Stmt inline_loads(const tir::Stmt& s, const tir::Buffer& buf, const ElementwiseStore& store);
tir::Expr inline_loads(const tir::Expr& e, const tir::Buffer& buf, const ElementwiseStore& store);

// The two sides of the schedule's reverse_compute_inline: `producer` is a block nest without
// init that stores `buf` exactly once and never reads it (a reduction's final store);
// `reader` is a single elementwise store of `out` (of `buf`'s shape) loading `buf` only at its
// own index.
bool stores_once(const tir::Stmt& producer, const tir::Buffer& buf);
bool reads_at_own_index(const tir::Stmt& reader, const tir::Buffer& buf, const tir::Buffer& out);

}  // namespace ingot::lower
