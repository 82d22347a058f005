// fuse_ops (see fuse_ops.h).
#include "graph/transforms/fuse_ops.h"

#include <deque>
#include <map>
#include <set>

#include "ops/concat_slices.h"
#include "ops/op.h"

namespace ingot::graph {

namespace {

using ops::PatternKind;

PatternKind pattern_of(const Node* n) {
  return ops::op_info(n->op).pattern;
}

bool is_injective_kind(PatternKind p) {
  return p == PatternKind::kElementwise || p == PatternKind::kBroadcast ||
         p == PatternKind::kInjective;
}

bool is_elementwise_kind(PatternKind p) {
  return p == PatternKind::kElementwise || p == PatternKind::kBroadcast;
}

int64_t elements(const Value* v) {
  return v->type.is_static() ? v->type.num_elements() : -1;
}

// A reduction whose output has fewer elements than its input (not a normalisation).
bool is_proper_reduction(const Node* n) {
  if (pattern_of(n) != PatternKind::kReduction || n->inputs.empty() || n->inputs[0] == nullptr)
    return false;
  int64_t in = elements(n->inputs[0]), out = elements(n->outputs[0]);
  return in >= 0 && out >= 0 && out < in;
}

// A node that can be part of a multi-node group at all.
bool groupable(const Node* n) {
  if (n->outputs.size() != 1 || n->outputs[0] == nullptr) return false;
  if (!n->outputs[0]->type.is_static()) return false;
  PatternKind p = pattern_of(n);
  return is_injective_kind(p) || p == PatternKind::kReduction;
}

class GroupBuilder {
 public:
  explicit GroupBuilder(Graph& g) : g_(g) {
    for (const auto& n : g.nodes())
      for (const Value* v : n->inputs)
        if (v != nullptr) users_[v].push_back(n.get());
    for (const Value* v : g.outputs) graph_outputs_.insert(v);
  }

  void run() {
    for (const auto& n : g_.nodes()) n->fusion_group = -1;
    const auto& nodes = g_.nodes();
    int next_group = 0;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* anchor = it->get();
      if (anchor->fusion_group >= 0 || !groupable(anchor) || built_in_place(anchor)) continue;
      std::vector<Node*> members = grow(anchor);
      if (members.size() < 2) continue;
      for (Node* m : members) m->fusion_group = next_group;
      ++next_group;
    }
  }

 private:
  // The members of the group anchored at `anchor`.
  std::vector<Node*> grow(Node* anchor) {
    std::set<const Node*> in_group = {anchor};
    std::vector<Node*> members = {anchor};
    bool has_reduction = pattern_of(anchor) == PatternKind::kReduction;
    std::deque<Node*> work = {anchor};
    while (!work.empty()) {
      Node* consumer = work.front();
      work.pop_front();
      for (Value* v : consumer->inputs) {
        if (v == nullptr || v->producer == nullptr) continue;
        Node* p = v->producer;
        if (in_group.count(p) || p->fusion_group >= 0 ||
            !joins(p, in_group, members, has_reduction))
          continue;
        in_group.insert(p);
        members.push_back(p);
        if (pattern_of(p) == PatternKind::kReduction) has_reduction = true;
        work.push_back(p);
      }
    }
    return members;
  }

  // A Concat whose inputs are contiguous slices of its output (not a graph output) stays alone:
  // lowering has their producers write into the slices, so no kernel copies them.
  bool built_in_place(const Node* n) const {
    return n->op == ops::OpKind::Concat && !graph_outputs_.count(n->outputs[0]) &&
           ops::concat_slice_offsets(*n).has_value();
  }

  // Whether producer `p` may join the group `in_group` (`members` in discovery order).
  bool joins(const Node* p, const std::set<const Node*>& in_group,
             const std::vector<Node*>& members, bool has_reduction) const {
    if (!groupable(p) || built_in_place(p)) return false;
    const Value* out = p->outputs[0];
    if (graph_outputs_.count(out)) return false;
    auto it = users_.find(out);
    if (it == users_.end()) return false;
    PatternKind pk = pattern_of(p);
    for (const Node* u : it->second) {
      if (!in_group.count(u)) return false;  // read outside: it would have to be stored
      // No recomputation per broadcast copy.
      if (elements(u->outputs[0]) > elements(out)) return false;
      PatternKind uk = pattern_of(u);
      if (is_injective_kind(pk)) {
        if (!is_injective_kind(uk) && uk != PatternKind::kReduction) return false;
      } else if (pk == PatternKind::kReduction) {
        if (!is_elementwise_kind(uk)) return false;
      } else {
        return false;
      }
    }
    if (pk == PatternKind::kReduction) {
      // An epilogue: the group so far is a tree of elementwise ops over the reduction's output
      // shape, so the reduction's final store can compute it (one reduction per group).
      if (has_reduction || !is_proper_reduction(p) || it->second.size() != 1) return false;
      for (const Node* m : members) {
        if (!is_elementwise_kind(pattern_of(m)) || m->outputs[0]->type.shape != out->type.shape)
          return false;
        if (m != members.front() && users_.at(m->outputs[0]).size() != 1) return false;
      }
    }
    return true;
  }

  Graph& g_;
  std::map<const Value*, std::vector<Node*>> users_;
  std::set<const Value*> graph_outputs_;
};

}  // namespace

void fuse_ops(Graph& g) {
  GroupBuilder(g).run();
}

}  // namespace ingot::graph
