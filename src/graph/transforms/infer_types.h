// Type inference over a whole graph: fills every Value's type, normalises attributes to the
// canonical forms (docs/graph-forms.md) and propagates the values of small shape tensors,
// replacing fully known shape computations with constants.
#pragma once

#include <functional>

#include "graph/graph.h"

namespace ingot::graph {

// Evaluates a batch of nodes at compile time. `nodes` are in topological order and every input
// of each is a constant or an output of an earlier node of the batch. Returns one entry per
// node: its output tensors (one per output), or an empty vector when it cannot be evaluated
// (then neither can the nodes that read its outputs). The driver supplies one that runs
// ingot's own kernels (driver/constant_eval.h); the graph layer knows nothing of how.
using ConstantEvaluator =
    std::function<std::vector<std::vector<TensorPtr>>(const std::vector<const Node*>&)>;

// Sorts the graph topologically, then infers each node's output types in order. A node whose
// outputs are all small int tensors with values known at compile time (Shape of a static
// shape, and Gather/Unsqueeze/Squeeze/Concat/Cast/Add/Sub/Mul/Div/Reshape over such values)
// is replaced by constant Values with the same names.
//
// With an evaluator, so is every other node whose inputs are all constants (and whose outputs
// are static and at most 16M elements): constant folding, done as inference goes so that later
// nodes see the constants (e.g. an Expand shape computed by Where/Equal from constants). An
// Identity of a constant becomes that constant (the same buffer). Other foldable nodes wait in
// a batch, so that one evaluator call folds many: the batch is handed over when a node that
// also reads run-time values reads a waiting value, when inference of a node needs a waiting
// value (it fails or gives a non-static type without it), and at the end.
// UserError on shape errors.
struct InferTypesStats {
  int identities_folded = 0;  // Identity nodes of constants replaced by their constant
  int batches = 0;            // evaluator calls
};
void infer_types(Graph& g, const ConstantEvaluator& evaluate = {},
                 InferTypesStats* stats = nullptr);

}  // namespace ingot::graph
