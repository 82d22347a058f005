// The elements of small run-time values as expressions, for the value function: a graph input's
// elements are loads of it; a value computed from graph inputs, constants and shape values
// through the ops ops::computes_small_values names (the arithmetic of an op's expanded form:
// `Range(0, Cast(size) - 1, 1)`, `Pad(x, Concat(Div(Sub(Max(Shape(x), shape), ...))))`) is
// evaluated element by element over them, with the kernels' semantics (integer Div truncates,
// Cast to bool tests for non-zero, Gather wraps negative indices and clamps).
#pragma once

#include <functional>
#include <map>
#include <utility>

#include "graph/graph.h"
#include "lower/symbolic_dims.h"
#include "tir/expr.h"

namespace ingot::lower {

class ValueElements {
 public:
  // Element i of graph input `input` in its own dtype.
  using InputLoad = std::function<tir::Expr(const graph::Value* input, int64_t i)>;
  ValueElements(const SymbolTable& symbols, InputLoad load)
      : symbols_(symbols), load_(std::move(load)) {}

  // Element i (row-major) of `v`, in its own dtype. InternalError for a value that is neither a
  // graph input, a constant, a shape value nor computed as ops::is_runtime_value describes.
  tir::Expr element(const graph::Value* v, int64_t i);

 private:
  tir::Expr compute(const graph::Node& n, const graph::Value* v, int64_t i);
  // Element at a flat index that is an expression (a Gather by run-time indices): a select
  // over the input's elements.
  tir::Expr element_at(const graph::Value* v, const tir::Expr& i);
  const SymbolTable& symbols_;
  InputLoad load_;
  std::map<std::pair<const graph::Value*, int64_t>, tir::Expr> memo_;
};

}  // namespace ingot::lower
