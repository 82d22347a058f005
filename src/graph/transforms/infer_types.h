// Type inference over a whole graph: fills every Value's type, normalises attributes to the
// canonical forms (docs/graph-forms.md) and propagates the values of small shape tensors,
// replacing fully known shape computations with constants.
#pragma once

#include <functional>

#include "graph/graph.h"

namespace ingot::graph {

// Evaluates a node whose inputs are all constants (one tensor per output), or returns an empty
// vector when it cannot; the driver supplies one that runs ingot's own kernels.
using ConstantEvaluator = std::function<std::vector<TensorPtr>(const Node&)>;

// Sorts the graph topologically, then infers each node's output types in order. A node whose
// outputs are all small int tensors with values known at compile time (Shape of a static
// shape, and Gather/Unsqueeze/Squeeze/Concat/Cast/Add/Sub/Mul/Div/Reshape over such values)
// is replaced by constant Values with the same names. With an evaluator, so is every other node
// whose inputs are all constants (and whose outputs are static and not huge): constant folding,
// done as inference goes so that later nodes see the constants (e.g. an Expand shape computed by
// Where/Equal from constants). UserError on shape errors.
void infer_types(Graph& g, const ConstantEvaluator& evaluate = {});

}  // namespace ingot::graph
