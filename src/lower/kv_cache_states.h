// kv_cache_states (`ingot compile --kv-cache CAPACITY`): a model input `past` whose only growth
// is an output `present = Concat(past, new, axis)` (a decoder's key/value cache) becomes a state
// the session keeps at CAPACITY entries along `axis` (tir::StateDesc, ABI 9). The run reads the
// valid entries in place, appends `new` at the current length, and readers of `present` see the
// state through strided buffers: nothing is copied back and forth between calls.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "tir/buffer.h"

namespace ingot::lower {

struct KvCacheState {
  const graph::Value* past;     // the graph input it replaces
  const graph::Value* present;  // the graph output it replaces
  const graph::Node* concat;    // present = Concat(past, added, axis)
  const graph::Value* added;    // the new entries
  int axis = 0;
  std::string length_symbol;  // past's dim along the axis
  graph::Dim step;            // added's dim along the axis: a symbol or a constant
  std::vector<int64_t> capacity_shape;
};

// The states of `g` for `capacity` entries. UserError naming the input, the output or the
// option when the model has no such pair, when a pair's other dims are not static, when the
// pairs' lengths are different symbols, or when another input has the length's dim.
std::vector<KvCacheState> find_kv_cache_states(const graph::Graph& g, const SymbolTable& symbols,
                                               int64_t capacity);

// The type of a state's buffer: the cache's dtype at its capacity shape.
graph::TensorType capacity_type(const KvCacheState& s);

// The artifact's record of a state whose buffer `tensor` describes (renamed after the input it
// replaces), its symbols placed among `symbols`.
tir::StateDesc describe_state(const KvCacheState& s, tir::TensorDesc tensor,
                              const SymbolTable& symbols);

// The element strides of a state's capacity layout (row-major over capacity_shape).
std::vector<tir::Expr> state_strides(const KvCacheState& s);

// The strides of `out` when it is `in` (a strided view with `strides`) with dims of extent 1
// inserted or removed, or nullopt when the reshape moves any other dim.
std::optional<std::vector<tir::Expr>> unit_reshape_strides(const graph::TensorType& in,
                                                           const graph::TensorType& out,
                                                           const std::vector<tir::Expr>& strides);

// The append kernel's body: state[..., length + i, ...] = added[..., i, ...] over added's shape.
tir::Stmt append_to_state(const tir::Buffer& added, const tir::Buffer& state, int axis,
                          const tir::Expr& length);

}  // namespace ingot::lower
