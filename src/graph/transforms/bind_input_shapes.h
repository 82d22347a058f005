// Binds the graph inputs' shapes (e.g. from --input-shapes): every symbol bound this way is
// replaced by its value in every Value of the graph.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace ingot::graph {

// UserError on an unknown input name (listing the valid ones), a rank mismatch, a static dim
// that differs, a negative dim, or one symbol bound to two different values. Run infer_types
// afterwards to refresh dims derived from the bound symbols.
void bind_input_shapes(Graph& g, const std::map<std::string, std::vector<int64_t>>& shapes);

}  // namespace ingot::graph
