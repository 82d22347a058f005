// Graph well-formedness: value names defined once, node inputs and graph outputs defined, and a
// stable topological order of the nodes (Kahn's algorithm, lowest original index first).
#include "frontend/onnx/graph_check.h"

#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "support/error.h"

namespace ingot::frontend::detail {

namespace {

[[noreturn]] void fail_invalid(const std::string& display_name, const std::string& why) {
  throw UserError(fmt::format("'{}' is not a valid ONNX model: {}", display_name, why));
}

}  // namespace

std::string node_name(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? fmt::format("{}_{}", node.op_type(), index) : node.name();
}

std::unordered_set<std::string> implicit_inputs(const onnx::NodeProto& node) {
  std::unordered_set<std::string> out;
  for (const auto& a : node.attribute()) {
    if (a.has_g()) out.merge(free_names(a.g()));
    for (const auto& body : a.graphs()) out.merge(free_names(body));
  }
  return out;
}

std::unordered_set<std::string> free_names(const onnx::GraphProto& g) {
  std::unordered_set<std::string> defined, read;
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& node : g.node()) {
    defined.insert(node.output().begin(), node.output().end());
    for (const auto& in : node.input())
      if (!in.empty()) read.insert(in);
    read.merge(implicit_inputs(node));
  }
  for (const auto& out : g.output()) read.insert(out.name());
  std::unordered_set<std::string> out;
  for (const std::string& name : read)
    if (!defined.count(name)) out.insert(name);
  return out;
}

std::vector<int> check_and_order_graph(const onnx::GraphProto& g, const std::string& display_name,
                                       const std::unordered_set<std::string>* outer) {
  // Where each value is defined: -1 for graph inputs and initializers, else the node index.
  std::unordered_map<std::string, int> defined;
  std::unordered_map<std::string, int> seen_inputs;
  for (const auto& in : g.input()) {
    if (in.name().empty()) fail_invalid(display_name, "a graph input has no name");
    if (!seen_inputs.emplace(in.name(), 0).second)
      fail_invalid(display_name, fmt::format("graph input '{}' is listed twice", in.name()));
    defined[in.name()] = -1;
  }
  std::unordered_map<std::string, int> seen_inits;
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) fail_invalid(display_name, "an initializer has no name");
    if (!seen_inits.emplace(t.name(), 0).second)
      fail_invalid(display_name, fmt::format("initializer '{}' is defined twice", t.name()));
    defined[t.name()] = -1;  // may repeat a graph input (opset < 9 models list them as inputs)
  }
  const int n = g.node_size();
  for (int i = 0; i < n; ++i) {
    const auto& node = g.node(i);
    // Optional outputs may be omitted (empty names), the first one too (LSTM with only Y_h).
    bool any_output = false;
    for (const auto& out : node.output()) any_output = any_output || !out.empty();
    if (!any_output)
      fail_invalid(display_name, fmt::format("node '{}' ({}) has no outputs", node_name(node, i),
                                             node.op_type()));
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      auto [it, inserted] = defined.emplace(out, i);
      if (!inserted)
        fail_invalid(display_name,
                     fmt::format("value '{}' is defined twice (again by node '{}' ({}))", out,
                                 node_name(node, i), node.op_type()));
    }
  }
  // Dependencies between nodes.
  std::vector<int> pending(size_t(n), 0);
  std::vector<std::vector<int>> consumers{size_t(n)};
  for (int i = 0; i < n; ++i) {
    const auto& node = g.node(i);
    std::vector<std::string> reads(node.input().begin(), node.input().end());
    for (const std::string& name : implicit_inputs(node)) reads.push_back(name);
    for (const auto& in : reads) {
      if (in.empty()) continue;
      auto it = defined.find(in);
      if (it == defined.end() && outer != nullptr && outer->count(in)) continue;
      if (it == defined.end())
        fail_invalid(display_name,
                     fmt::format("node '{}' ({}) reads value '{}', which is not defined",
                                 node_name(node, i), node.op_type(), in));
      if (it->second >= 0) {
        ++pending[size_t(i)];
        consumers[size_t(it->second)].push_back(i);
      }
    }
  }
  if (g.output_size() == 0) fail_invalid(display_name, "the graph has no outputs");
  for (const auto& out : g.output())
    if (!defined.count(out.name()) && !(outer != nullptr && outer->count(out.name())))
      fail_invalid(display_name, fmt::format("graph output '{}' is not defined", out.name()));

  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (pending[size_t(i)] == 0) ready.push(i);
  std::vector<int> order;
  order.reserve(size_t(n));
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[size_t(i)])
      if (--pending[size_t(c)] == 0) ready.push(c);
  }
  if (int(order.size()) != n) {
    for (int i = 0; i < n; ++i)
      if (pending[size_t(i)] > 0)
        fail_invalid(display_name, fmt::format("the graph has a cycle through node '{}' ({})",
                                               node_name(g.node(i), i), g.node(i).op_type()));
  }
  return order;
}

}  // namespace ingot::frontend::detail
