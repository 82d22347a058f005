// Constant folding with ingot's own kernels: a node whose inputs are all constants is compiled
// on its own (its compute rule, the host target) and run through the runtime at compile time,
// so folding never needs a second implementation of an op's semantics.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace ingot::driver {

// The values of `node`'s outputs (one per output slot, null for omitted ones), or an empty
// vector when the node cannot be evaluated here (an unsupported op or dtype: it then stays in
// the graph and is reported where it is lowered).
std::vector<graph::TensorPtr> evaluate_constant_node(const graph::Node& node);

}  // namespace ingot::driver
