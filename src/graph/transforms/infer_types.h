// Type inference over a whole graph: fills every Value's type, normalises attributes to the
// canonical forms (docs/graph-forms.md) and propagates the values of small shape tensors,
// replacing fully known shape computations with constants.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

// Sorts the graph topologically, then infers each node's output types in order. A node whose
// outputs are all small int tensors with values known at compile time (Shape of a static
// shape, and Gather/Unsqueeze/Squeeze/Concat/Cast/Add/Sub/Mul/Div/Reshape over such values)
// is replaced by constant Values with the same names. UserError on shape errors.
void infer_types(Graph& g);

}  // namespace ingot::graph
