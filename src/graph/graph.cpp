// Graph IR: construction, use lists, node removal, dead-code removal and topological sorting.
#include "graph/graph.h"

#include <fmt/format.h>
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "support/error.h"

namespace ingot::graph {

std::string Node::describe() const {
  return fmt::format("node '{}' ({})", name, ops::op_name(op));
}

Value* Graph::add_value(std::string name, TensorType type) {
  auto v = std::make_unique<Value>();
  v->id = next_id_++;
  v->name = std::move(name);
  v->type = std::move(type);
  values_.push_back(std::move(v));
  return values_.back().get();
}

Value* Graph::add_constant(std::string name, TensorPtr data) {
  INGOT_ICHECK(data != nullptr, "add_constant('{}') without data", name);
  Value* v = add_value(std::move(name), data->type());
  v->constant = std::move(data);
  return v;
}

Node* Graph::add_node(ops::OpKind op, std::string name, std::vector<Value*> inputs,
                      std::vector<std::string> output_names, Attrs attrs) {
  auto n = std::make_unique<Node>();
  n->id = next_id_++;
  n->op = op;
  n->name = std::move(name);
  n->attrs = std::move(attrs);
  n->inputs = std::move(inputs);
  for (size_t i = 0; i < output_names.size(); ++i) {
    Value* v = add_value(std::move(output_names[i]), TensorType{});
    v->producer = n.get();
    v->output_index = int(i);
    n->outputs.push_back(v);
  }
  nodes_.push_back(std::move(n));
  return nodes_.back().get();
}

std::vector<Node*> Graph::users(const Value* v) const {
  std::vector<Node*> out;
  for (const auto& n : nodes_) {
    if (std::find(n->inputs.begin(), n->inputs.end(), v) != n->inputs.end()) out.push_back(n.get());
  }
  return out;
}

void Graph::replace_all_uses(Value* from, Value* to) {
  for (const auto& n : nodes_)
    for (Value*& in : n->inputs)
      if (in == from) in = to;
  for (Value*& out : outputs)
    if (out == from) out = to;
}

void Graph::remove_node(Node* n) {
  for (Value* out : n->outputs) {
    INGOT_ICHECK(users(out).empty(), "remove_node: output '{}' of {} is still used", out->name,
                 n->describe());
    INGOT_ICHECK(std::find(outputs.begin(), outputs.end(), out) == outputs.end(),
                 "remove_node: output '{}' of {} is a graph output", out->name, n->describe());
  }
  std::unordered_set<const Value*> dead(n->outputs.begin(), n->outputs.end());
  std::erase_if(values_, [&](const std::unique_ptr<Value>& v) { return dead.count(v.get()); });
  std::erase_if(nodes_, [&](const std::unique_ptr<Node>& p) { return p.get() == n; });
}

void Graph::remove_dead() {
  // Mark backwards from the graph outputs.
  std::unordered_set<const Value*> live_values(outputs.begin(), outputs.end());
  std::unordered_set<const Node*> live_nodes;
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
    const Node* n = it->get();
    bool live = std::any_of(n->outputs.begin(), n->outputs.end(),
                            [&](const Value* v) { return live_values.count(v); });
    if (!live) continue;
    live_nodes.insert(n);
    for (const Value* in : n->inputs)
      if (in) live_values.insert(in);
  }
  // Nodes are expected in topological order; a second pass catches any out-of-order producer.
  bool changed = true;
  while (changed) {
    changed = false;
    for (const auto& n : nodes_) {
      if (live_nodes.count(n.get())) continue;
      if (std::any_of(n->outputs.begin(), n->outputs.end(),
                      [&](const Value* v) { return live_values.count(v); })) {
        live_nodes.insert(n.get());
        for (const Value* in : n->inputs)
          if (in) live_values.insert(in);
        changed = true;
      }
    }
  }
  std::erase_if(nodes_, [&](const std::unique_ptr<Node>& n) { return !live_nodes.count(n.get()); });
  std::unordered_set<const Value*> keep(live_values);
  keep.insert(inputs.begin(), inputs.end());
  for (const auto& n : nodes_)  // all outputs of a live node stay (multi-output nodes)
    keep.insert(n->outputs.begin(), n->outputs.end());
  std::erase_if(values_, [&](const std::unique_ptr<Value>& v) { return !keep.count(v.get()); });
}

void Graph::topo_sort() {
  // Kahn's algorithm, stable: among ready nodes, the earliest in the current order goes first.
  std::unordered_map<const Value*, size_t> producer_index;
  for (size_t i = 0; i < nodes_.size(); ++i)
    for (const Value* v : nodes_[i]->outputs) producer_index[v] = i;
  std::vector<int> pending(nodes_.size(), 0);
  std::vector<std::vector<size_t>> consumers(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (const Value* in : nodes_[i]->inputs) {
      auto it = in ? producer_index.find(in) : producer_index.end();
      if (it == producer_index.end()) continue;
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  }
  std::vector<size_t> ready;  // kept as a min-heap of indices
  auto cmp = std::greater<size_t>();
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (pending[i] == 0) ready.push_back(i);
  std::make_heap(ready.begin(), ready.end(), cmp);
  std::vector<size_t> order;
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), cmp);
    size_t i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (size_t c : consumers[i]) {
      if (--pending[c] == 0) {
        ready.push_back(c);
        std::push_heap(ready.begin(), ready.end(), cmp);
      }
    }
  }
  if (order.size() != nodes_.size()) {
    for (size_t i = 0; i < nodes_.size(); ++i)
      if (pending[i] > 0) fail_user("graph has a cycle through {}", nodes_[i]->describe());
  }
  std::vector<std::unique_ptr<Node>> sorted;
  sorted.reserve(nodes_.size());
  for (size_t i : order) sorted.push_back(std::move(nodes_[i]));
  nodes_ = std::move(sorted);
}

Value* Graph::find_value(const std::string& name) const {
  for (const auto& v : values_)
    if (v->name == name) return v.get();
  return nullptr;
}

}  // namespace ingot::graph
