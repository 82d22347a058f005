// graph_digest (see graph_digest.h).
#include "graph/graph_digest.h"

#include <fmt/format.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "graph/printer.h"

namespace ingot::graph {

std::string graph_digest(const Graph& g) {
  const std::string text = print_graph(g);
  return fmt::format("{:016x}", uint64_t(XXH3_64bits(text.data(), text.size())));
}

}  // namespace ingot::graph
