// remove_dead_code: a named pass over Graph::remove_dead (graph inputs are always kept).
#include "graph/transforms/dead_code.h"

namespace ingot::graph {

void remove_dead_code(Graph& g) {
  g.remove_dead();
}

}  // namespace ingot::graph
