// Lowering of a type-inferred, static graph to loop IR: one kernel per node (built from the
// op's compute rule), constants packed into a blob, intermediates planned into a workspace arena,
// and the entry call sequence.
#pragma once

#include "graph/graph.h"
#include "tir/module.h"

namespace ingot::lower {

// `g` must have its types inferred (graph::infer_types). UserError when a dimension is still
// symbolic (naming the input and the --input-shapes option) or an op/dtype is not supported.
tir::IRModule lower_graph(const graph::Graph& g);

}  // namespace ingot::lower
