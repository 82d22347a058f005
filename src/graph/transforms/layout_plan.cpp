// conv_layout_classes (see layout_plan.h): a union-find over the values layout_nchwc blocks.
#include "graph/transforms/layout_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "graph/transforms/layout_nchwc.h"
#include "ops/op.h"

namespace ingot::graph {

namespace {

class ClassBuilder {
 public:
  explicit ClassBuilder(const ChannelBlockPolicy& policy) : policy_(policy) {}

  std::vector<ConvLayoutClass> run(const Graph& g) {
    for (const auto& node : g.nodes()) visit(*node);
    std::map<const Value*, ConvLayoutClass> by_root;
    std::vector<const Value*> order;  // roots in graph order of their first conv
    for (const auto& node : g.nodes())
      for (const Value* v : node->outputs) {
        if (!v || !parent_.count(v)) continue;
        const Value* root = find(v);
        auto [it, fresh] = by_root.try_emplace(root);
        if (fresh) order.push_back(root);
        ConvLayoutClass& c = it->second;
        c.values.push_back(v->name);
        c.nodes.push_back(node->name);
        if (writer_.count(node.get())) c.convs.push_back(node->name);
      }
    // Readers: every other node that reads a class's value, in graph order.
    for (const auto& node : g.nodes())
      for (const Value* v : node->inputs) {
        if (!has(v)) continue;
        std::vector<std::string>& names = by_root[find(v)].nodes;
        if (std::find(names.begin(), names.end(), node->name) == names.end())
          names.push_back(node->name);
      }
    std::vector<ConvLayoutClass> classes;
    for (const Value* root : order) {
      ConvLayoutClass& c = by_root[root];
      if (c.convs.empty()) continue;
      c.blocks = blocks_of(root);
      classes.push_back(std::move(c));
    }
    return classes;
  }

 private:
  const Value* find(const Value* v) {
    while (parent_.at(v) != v) v = parent_[v] = parent_.at(parent_.at(v));
    return v;
  }
  void add(const Value* v) { parent_.try_emplace(v, v); }
  bool has(const Value* v) const { return v && parent_.count(v); }
  void fix(const Value* v) { fixed_roots_.insert(find(v)); }

  void visit(const Node& n) {
    if (n.outputs.size() != 1 || !n.outputs[0]) return;
    const Value* y = n.outputs[0];
    const Value* x = n.inputs.empty() ? nullptr : n.inputs[0];
    if (blockable_conv(n, policy_)) {
      add(y);
      const int64_t group = n.attrs.get_int("group", 1);
      if (group == 1) {
        writer_.insert(&n);
        channels_[find(y)].push_back(y->type.shape[1].value);
      } else if (depthwise_conv(n) && has(x)) {
        merge(x, y);
      } else {
        fix(y);  // a grouped conv's blocks are its groups', a depthwise one's its input's
      }
      if (n.inputs.size() > 3 && has(n.inputs[3])) merge(n.inputs[3], y);  // the summand
      return;
    }
    const bool pool = n.op == ops::OpKind::MaxPool || n.op == ops::OpKind::AveragePool ||
                      n.op == ops::OpKind::GlobalAveragePool ||
                      n.op == ops::OpKind::GlobalMaxPool || n.op == ops::OpKind::ReduceMean ||
                      n.op == ops::OpKind::ReduceMax;
    if (pool && has(x)) {
      add(y);
      merge(x, y);
      return;
    }
    const bool concat = n.op == ops::OpKind::Concat;
    if (!concat && !blockable_elementwise(n)) return;
    bool any = false;
    for (const Value* v : n.inputs)
      if (has(v)) {
        if (!any) add(y);
        any = true;
        merge(v, y);
      }
    if (any && concat) fix(y);
  }

  void merge(const Value* a, const Value* b) {
    const Value *ra = find(a), *rb = find(b);
    if (ra == rb) return;
    parent_[rb] = ra;
    if (fixed_roots_.count(rb)) fixed_roots_.insert(ra);
    std::vector<int64_t>& to = channels_[ra];
    const std::vector<int64_t>& from = channels_[rb];
    to.insert(to.end(), from.begin(), from.end());
  }

  // The blocks every writer of the class allows, the first writer's default first.
  std::vector<int64_t> blocks_of(const Value* root) {
    const std::vector<int64_t>& channels = channels_[root];
    std::vector<int64_t> blocks = policy_.conv_output_options
                                      ? policy_.conv_output_options(channels.front())
                                      : std::vector<int64_t>{policy_.conv_output(channels.front())};
    // Not free: a member's block is not the plan's, or the writers' defaults differ.
    for (int64_t c : channels)
      if (fixed_roots_.count(root) || policy_.conv_output(c) != blocks.front()) blocks.resize(1);
    for (int64_t c : channels) {
      std::vector<int64_t> allowed = policy_.conv_output_options
                                         ? policy_.conv_output_options(c)
                                         : std::vector<int64_t>{policy_.conv_output(c)};
      std::erase_if(blocks, [&](int64_t b) {
        return std::find(allowed.begin(), allowed.end(), b) == allowed.end();
      });
    }
    return blocks;
  }

  const ChannelBlockPolicy& policy_;
  std::map<const Value*, const Value*> parent_;
  std::set<const Value*> fixed_roots_;
  std::map<const Value*, std::vector<int64_t>> channels_;  // root -> its writers' channels
  std::set<const Node*> writer_;
};

}  // namespace

std::vector<ConvLayoutClass> conv_layout_classes(const Graph& g, const ChannelBlockPolicy& policy) {
  return ClassBuilder(policy).run(g);
}

}  // namespace ingot::graph
