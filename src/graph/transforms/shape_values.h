// Internal to infer_types: compile-time values of small int64/int32 tensors computed from
// shapes (ONNX-style data propagation), as expressions of the input symbols.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "graph/graph.h"

namespace ingot::graph {

// Largest tensor whose values are tracked.
inline constexpr int64_t kMaxShapeValueElements = 64;

using ShapeValues = std::vector<SymExpr>;
using KnownValues = std::function<const ShapeValues*(const Value*)>;

// The values of output 0 of `n` (whose types are already inferred), or nullopt when they are
// not all known. Only nodes with a single static int64/int32 output are handled; an element is
// a constant, or an expression of symbols when it comes from a symbolic dim (Shape of
// [batch, seq, 768] is [batch, seq, 768]).
std::optional<ShapeValues> propagate_shape_value(const Node& n, const KnownValues& known);

}  // namespace ingot::graph
