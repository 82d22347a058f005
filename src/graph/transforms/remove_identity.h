// remove_identity: Identity nodes (Dropout becomes Identity at import) are bypassed: their users
// read the input directly. An Identity whose output is a graph output stays (the output name is
// part of the model's interface).
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void remove_identity(Graph& g);

}  // namespace ingot::graph
