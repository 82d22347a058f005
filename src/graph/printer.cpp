// print_graph: the graph as text (inputs, constants, one node per line, outputs).
#include "graph/printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ingot::graph {

namespace {

// Constants with at most this many elements print their values.
constexpr int64_t kMaxPrintedElements = 8;

std::string ref(const Value* v) {
  if (!v) return "null";
  return v->name.empty() ? fmt::format("%{}", v->id) : "%" + v->name;
}

std::string typed(const Value* v) {
  return ref(v) + ": " + v->type.str();
}

struct AttrText {
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const { return fmt::format("{}", v); }
  std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
  std::string operator()(const std::vector<int64_t>& v) const {
    return fmt::format("[{}]", fmt::join(v, ","));
  }
  std::string operator()(const std::vector<double>& v) const {
    return fmt::format("[{}]", fmt::join(v, ","));
  }
  std::string operator()(const std::vector<std::string>& v) const {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ",\"" : "\"") + v[i] + "\"";
    return s + "]";
  }
};

std::string constant_line(const Value* v) {
  std::string s = "  " + typed(v) + " = constant";
  const Tensor& t = *v->constant;
  if (t.num_elements() > kMaxPrintedElements) return s;
  std::vector<std::string> elems;
  bool is_float = is_float_dtype(t.dtype());
  for (int64_t i = 0; i < t.num_elements(); ++i)
    elems.push_back(is_float ? fmt::format("{}", t.get_f64(i)) : std::to_string(t.get_i64(i)));
  return s + fmt::format(" [{}]", fmt::join(elems, ", "));
}

}  // namespace

std::string print_node(const Node& n) {
  std::vector<std::string> outs, ins, attrs;
  for (const Value* v : n.outputs) outs.push_back(typed(v));
  for (const Value* v : n.inputs) ins.push_back(ref(v));
  for (const auto& [k, v] : n.attrs.all()) attrs.push_back(k + "=" + std::visit(AttrText{}, v));
  std::string s =
      fmt::format("{} = {}({})", fmt::join(outs, ", "), ops::op_name(n.op), fmt::join(ins, ", "));
  if (!attrs.empty()) s += fmt::format(" {{{}}}", fmt::join(attrs, ", "));
  if (n.fusion_group >= 0) s += fmt::format("  # group {}", n.fusion_group);
  return s;
}

std::string print_graph(const Graph& g) {
  std::vector<std::string> ins;
  for (const Value* v : g.inputs) ins.push_back(typed(v));
  std::string s = fmt::format("graph {}({}) {{\n", g.name, fmt::join(ins, ", "));
  for (const auto& v : g.values())
    if (v->is_constant()) s += constant_line(v.get()) + "\n";
  for (const auto& n : g.nodes()) s += "  " + print_node(*n) + "\n";
  std::vector<std::string> outs;
  for (const Value* v : g.outputs) outs.push_back(ref(v));
  return s + fmt::format("  return {}\n}}\n", fmt::join(outs, ", "));
}

}  // namespace ingot::graph
