// bind_input_shapes: check the given input shapes against the graph inputs and substitute the
// bound symbols everywhere.
#include "graph/transforms/bind_input_shapes.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/error.h"

namespace ingot::graph {

namespace {

std::string shape_text(const std::vector<int64_t>& s) {
  return fmt::format("[{}]", fmt::join(s, ","));
}

}  // namespace

void bind_input_shapes(Graph& g, const std::map<std::string, std::vector<int64_t>>& shapes) {
  std::map<std::string, int64_t> bound;  // symbol -> value
  for (const auto& [name, shape] : shapes) {
    Value* input = nullptr;
    for (Value* v : g.inputs)
      if (v->name == name) input = v;
    if (!input) {
      std::vector<std::string> names;
      for (Value* v : g.inputs) names.push_back(v->name);
      fail_user("unknown input '{}' in input shapes; the model's inputs are: {}", name,
                names.empty() ? "(none)" : fmt::format("{}", fmt::join(names, ", ")));
    }
    const TensorType& t = input->type;
    if (int(shape.size()) != t.rank())
      fail_user("input '{}' has rank {} ({}) but the given shape {} has rank {}", name, t.rank(),
                t.str(), shape_text(shape), shape.size());
    for (size_t i = 0; i < shape.size(); ++i) {
      const Dim& d = t.shape[i];
      if (shape[i] < 0)
        fail_user("input '{}': given shape {} has a negative dim", name, shape_text(shape));
      if (d.is_static()) continue;  // overridden below, as tvmc allows
      auto [it, fresh] = bound.emplace(d.str(), shape[i]);
      if (!fresh && it->second != shape[i])
        fail_user("symbol '{}' is bound to both {} and {} (input '{}')", d.str(), it->second,
                  shape[i], name);
    }
  }
  auto remember_symbols = [](Value& v) {
    if (!v.declared_symbols.empty()) return;
    for (const Dim& d : v.type.shape) v.declared_symbols.push_back(d.symbol_name());
  };
  for (const auto& v : g.values())
    for (Dim& d : v->type.shape)
      if (!d.is_static()) {
        Dim bound_dim = Dim::of(d.expr.substitute(bound));
        if (bound_dim == d) continue;
        remember_symbols(*v);
        d = bound_dim;
      }
  // Explicit shapes override static input dims too (as tvmc's --input-shapes does); inference
  // recomputes everything downstream.
  for (const auto& [name, shape] : shapes) {
    for (Value* v : g.inputs) {
      if (v->name != name) continue;
      for (size_t i = 0; i < shape.size(); ++i) v->type.shape[i] = Dim::fixed(shape[i]);
    }
  }
}

}  // namespace ingot::graph
