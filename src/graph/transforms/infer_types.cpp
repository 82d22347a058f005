// infer_types: per-node type inference in topological order, plus shape-value propagation that
// turns fully known shape computations into constants, and constant folding in batches.
#include "graph/transforms/infer_types.h"

#include "graph/transforms/inline_if.h"

#include "graph/transforms/fuse_qdq.h"

#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "graph/transforms/shape_values.h"
#include "ops/op.h"
#include "support/error.h"

namespace ingot::graph {

namespace {

// The constants of `vals`, or nullopt when an element is symbolic.
std::optional<std::vector<int64_t>> constants_of(const ShapeValues& vals) {
  std::vector<int64_t> out;
  for (const SymExpr& e : vals) {
    std::optional<int64_t> c = e.as_constant();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

TensorPtr make_int_tensor(const TensorType& t, const std::vector<int64_t>& vals) {
  std::vector<uint8_t> bytes(vals.size() * size_t(dtype_bytes(t.dtype)));
  for (size_t i = 0; i < vals.size(); ++i) {
    if (t.dtype == DType::kI64) {
      std::memcpy(bytes.data() + i * 8, &vals[i], 8);
    } else {
      int32_t v = int32_t(vals[i]);
      std::memcpy(bytes.data() + i * 4, &v, 4);
    }
  }
  return std::make_shared<Tensor>(t.dtype, t.static_shape(), std::move(bytes));
}

constexpr int64_t kMaxFoldElements = int64_t(1) << 24;

// Whether every input of `n` present is a constant or a value in `pending` (at least one).
bool constant_inputs(const Node& n, const std::unordered_set<const Value*>& pending) {
  bool any_input = false;
  for (const Value* v : n.inputs) {
    if (v == nullptr) continue;
    if (!v->is_constant() && !pending.count(v)) return false;
    any_input = true;
  }
  return any_input;
}

bool reads_any(const Node& n, const std::unordered_set<const Value*>& pending) {
  for (const Value* v : n.inputs)
    if (v != nullptr && pending.count(v)) return true;
  return false;
}

// Whether the outputs are static and at most 16M elements in all (worth folding).
bool small_static_outputs(const Node& n) {
  int64_t elements = 0;
  for (const Value* v : n.outputs) {
    if (v == nullptr || !v->type.is_static()) return false;
    elements += v->type.num_elements();
  }
  return elements <= kMaxFoldElements;
}

// The nodes waiting to be folded, handed to the evaluator together.
class FoldBatch {
 public:
  FoldBatch(Graph& g, const ConstantEvaluator& evaluate, int& calls)
      : g_(g), evaluate_(evaluate), calls_(calls) {}

  const std::unordered_set<const Value*>& values() const { return values_; }

  void add(Node* n) {
    nodes_.push_back(n);
    for (const Value* v : n->outputs)
      if (v) values_.insert(v);
  }

  // Evaluates the batch; each node evaluated is replaced by constants with its outputs' names,
  // the others stay (their types are inferred).
  void flush() {
    if (nodes_.empty()) return;
    std::vector<const Node*> batch(nodes_.begin(), nodes_.end());
    ++calls_;
    std::vector<std::vector<TensorPtr>> folded = evaluate_(batch);
    std::vector<Node*> declined;
    INGOT_ICHECK(folded.size() == nodes_.size(), "the evaluator answered {} of {} nodes",
                 folded.size(), nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      Node* n = nodes_[i];
      if (folded[i].size() != n->outputs.size()) {
        declined.push_back(n);
        continue;
      }
      for (size_t k = 0; k < folded[i].size(); ++k) {
        Value* old = n->outputs[k];
        if (old == nullptr) continue;
        g_.replace_all_uses(old, g_.add_constant(old->name, folded[i][k]));
      }
      g_.remove_node(n);
    }
    nodes_.clear();
    values_.clear();
    // A node that stays was inferred while some inputs waited: infer it again now that those
    // that folded are constants, so it is normalised as it would be unbatched.
    for (Node* n : declined) {
      std::vector<TensorType> types = ops::op_info(n->op).infer(*n);
      for (size_t i = 0; i < types.size(); ++i) n->outputs[i]->type = std::move(types[i]);
    }
  }

 private:
  Graph& g_;
  const ConstantEvaluator& evaluate_;
  int& calls_;
  std::vector<Node*> nodes_;
  std::unordered_set<const Value*> values_;
};

}  // namespace

void infer_types(Graph& g, const ConstantEvaluator& evaluate, InferTypesStats* stats) {
  InferTypesStats local;
  if (stats == nullptr) stats = &local;
  g.topo_sort();
  for (const auto& n : g.nodes())  // recomputed below (symbols may have been bound since)
    for (Value* v : n->outputs)
      if (v) v->symbolic_value.clear();
  std::unordered_map<const Value*, ShapeValues> values;
  KnownValues known = [&](const Value* v) -> const ShapeValues* {
    auto it = values.find(v);
    if (it != values.end()) return &it->second;
    if (!v->symbolic_value.empty()) return &v->symbolic_value;
    if (!v->is_constant()) return nullptr;
    const Tensor& t = *v->constant;
    if ((t.dtype() != DType::kI64 && t.dtype() != DType::kI32) ||
        t.num_elements() > kMaxShapeValueElements)
      return nullptr;
    ShapeValues vals;
    for (int64_t i = 0; i < t.num_elements(); ++i) vals.push_back(SymExpr(t.get_i64(i)));
    return &(values[v] = std::move(vals));
  };

  FoldBatch batch(g, evaluate, stats->batches);
  auto infer = [&](Node* n) {
    const ops::OpInfo& info = ops::op_info(n->op);
    if (info.bind_bodies_fn != nullptr) {  // control flow: the bodies first, with their inputs
      info.bind_bodies_fn(*n);
      for (const std::shared_ptr<Graph>& body : n->subgraphs) infer_types(*body, evaluate);
    }
    std::vector<TensorType> types = info.infer(*n);
    for (size_t i = 0; i < types.size(); ++i) n->outputs[i]->type = std::move(types[i]);
  };
  std::vector<Node*> order;
  for (const auto& n : g.nodes()) order.push_back(n.get());
  for (Node* n : order) {
    // 1. A node that reads waiting values and also run-time ones gets the constants first
    //    (its inference and attribute normalisation see them, as they would unbatched).
    // (Control-flow nodes run their bodies only in the compiled model.)
    bool foldable = evaluate && n->subgraphs.empty() && constant_inputs(*n, batch.values());
    if (!foldable && reads_any(*n, batch.values())) batch.flush();
    // 2. Inference; when it fails or gives a non-static or huge type with waiting inputs, it
    //    may need their values: evaluate the batch and infer again.
    // 2a. An If whose cond is now a constant becomes the branch it takes; inference starts over
    //     (the branch's nodes are new, and the other branch is never inferred).
    if (n->op == ops::OpKind::If && n->inputs.at(0) != nullptr &&
        batch.values().count(n->inputs[0]))
      batch.flush();
    if (is_constant_if(*n)) {
      batch.flush();
      inline_constant_if(g, n);
      infer_types(g, evaluate, stats);
      return;
    }
    bool waits = reads_any(*n, batch.values());
    if (waits) {
      bool ok = true;
      try {
        infer(n);
        ok = small_static_outputs(*n);
      } catch (const UserError&) {
        ok = false;
      }
      if (!ok) {
        batch.flush();
        waits = false;
      }
    }
    if (!waits) infer(n);
    // 3. Fold: shape values by propagation; an Identity of a constant is that constant; any
    //    other node with constant inputs waits in the batch. (Inference may have dropped an
    //    input that only gave a dtype, as CastLike's: ask again.)
    foldable = evaluate && n->subgraphs.empty() && constant_inputs(*n, batch.values());
    std::optional<ShapeValues> vals = propagate_shape_value(*n, known);
    std::optional<std::vector<int64_t>> consts = vals ? constants_of(*vals) : std::nullopt;
    if (vals && !consts) {
      // Known as expressions of the symbols: the node stays (it runs if its value is read), and
      // ops that take shapes read the expressions.
      n->outputs[0]->symbolic_value = *vals;
      continue;
    }
    if (!vals && foldable && n->op == ops::OpKind::Identity && n->inputs.size() == 1 &&
        n->inputs[0] && n->inputs[0]->is_constant()) {
      Value* old = n->outputs[0];
      g.replace_all_uses(old, g.add_constant(old->name, n->inputs[0]->constant));
      g.remove_node(n);
      ++stats->identities_folded;
      continue;
    }
    // (A dequantized weight of a Conv or MatMul stays for fuse_qdq, which folds it itself when it
    // cannot run the product in integers.)
    if (!vals && foldable && keep_for_fuse_qdq(g, *n)) continue;
    if (!vals && foldable && small_static_outputs(*n)) {
      batch.add(n);
      continue;
    }
    if (!vals) continue;
    Value* old = n->outputs[0];
    Value* c = g.add_constant(old->name, make_int_tensor(old->type, *consts));
    values[c] = std::move(*vals);
    g.replace_all_uses(old, c);
    g.remove_node(n);
  }
  batch.flush();
}

}  // namespace ingot::graph
