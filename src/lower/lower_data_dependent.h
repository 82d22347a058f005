// Lowering of the ops whose output size their input data decides (NonZero, Compress, Unique,
// NonMaxSuppression): a counting kernel writes the size into its symbol's slot of the entry's
// symbols table (an ArgRef::kSymbol argument), then a filling kernel, which reads the new size
// as a shape parameter like every kernel after it, writes the output (NonMaxSuppression, whose
// rows are 3 apart whatever their count, does both in one kernel). Before the run the value
// function set the symbol to its bound, so the memory plan and the output buffers hold the
// largest result; the runtime reads the true output shapes back after the run
// (docs/dynamic-shapes.md, "Data-dependent outputs").
#pragma once

#include "graph/graph.h"
#include "lower/lower_control_flow.h"

namespace ingot::lower {

// Lowers `node` when it is a NonZero, Compress, Unique or NonMaxSuppression; else false.
bool lower_data_dependent_node(const graph::Node& node, LoweringHost& host);

}  // namespace ingot::lower
