// Value symbols: dims that the *values* of a shape-deciding graph input decide (Reshape's
// `shape` fed by the model's caller), served at run time instead of frozen by
// --specialize-inputs (docs/dynamic-shapes.md, step 7). Inference names such a dim with a fresh
// symbol; the artifact computes it from the input's values before the run (the runtime calls its
// value function after binding the input shapes), and everything downstream treats it as any
// other symbol: kernels over symbolic extents, the memory plan as a function of the symbols.
#pragma once

#include <optional>
#include <string>

#include "graph/graph.h"

namespace ingot::ops {

// A graph input (a run-time value), not a constant or a computed value.
bool is_runtime_input(const graph::Value* v);

// The value symbol of dim `axis` of output `output` of `n`.
graph::Dim value_dim(const graph::Node& n, int output, int axis);

// Whether `n` defines value symbol `symbol`, with its upper bound as an expression of the
// input shapes' symbols; nullopt when `n` does not define it.
std::optional<graph::SymExpr> value_symbol_bound(const graph::Node& n, const std::string& symbol);

// The axis of value symbol `symbol` of `n`'s output `output`, or -1.
int value_symbol_axis(const graph::Node& n, int output, const std::string& symbol);

}  // namespace ingot::ops
