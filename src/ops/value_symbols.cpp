// Value symbols at the graph level: naming, and which ops define them (see value_symbols.h).
#include "ops/value_symbols.h"

#include <fmt/format.h>

#include "ops/shape_util.h"

namespace ingot::ops {

bool is_runtime_input(const graph::Value* v) {
  return v != nullptr && v->producer == nullptr && !v->is_constant() && v->symbolic_value.empty();
}

graph::Dim value_dim(const graph::Node& n, int output, int axis) {
  const graph::Value* out = n.outputs.at(size_t(output));
  return graph::Dim::named(fmt::format("{}.v{}", out != nullptr ? out->name : n.name, axis));
}

int value_symbol_axis(const graph::Node& n, int output, const std::string& symbol) {
  const graph::Value* out = n.outputs.at(size_t(output));
  if (out == nullptr) return -1;
  for (int a = 0; a < out->type.rank(); ++a)
    if (value_dim(n, output, a).sym().symbol_name() == symbol) return a;
  return -1;
}

std::optional<graph::SymExpr> value_symbol_bound(const graph::Node& n, const std::string& symbol) {
  switch (n.op) {
    case OpKind::Reshape:  // each dim is at most the element count, unless that is 0
      if (is_runtime_input(n.inputs.at(1)) && value_symbol_axis(n, 0, symbol) >= 0) {
        graph::SymExpr count = detail::dim_product(n.inputs[0]->type.shape).sym();
        return count == graph::SymExpr(0) ? graph::SymExpr(int64_t(1) << 40) : count;
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

}  // namespace ingot::ops
