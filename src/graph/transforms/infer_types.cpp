// infer_types: per-node type inference in topological order, plus shape-value propagation that
// turns fully known shape computations into constants.
#include "graph/transforms/infer_types.h"

#include <cstring>
#include <unordered_map>

#include "graph/transforms/shape_values.h"
#include "ops/op.h"

namespace ingot::graph {

namespace {

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

// Whether `n` is worth folding with the evaluator: every input present is a constant and the
// outputs are static and at most 16M elements in all.
bool foldable(const Node& n) {
  bool any_input = false;
  for (const Value* v : n.inputs) {
    if (v == nullptr) continue;
    if (!v->is_constant()) return false;
    any_input = true;
  }
  int64_t elements = 0;
  for (const Value* v : n.outputs) {
    if (v == nullptr || !v->type.is_static()) return false;
    elements += v->type.num_elements();
  }
  return any_input && elements <= (int64_t(1) << 24);
}

}  // namespace

void infer_types(Graph& g, const ConstantEvaluator& evaluate) {
  g.topo_sort();
  std::unordered_map<const Value*, std::vector<int64_t>> values;
  KnownValues known = [&](const Value* v) -> const std::vector<int64_t>* {
    auto it = values.find(v);
    if (it != values.end()) return &it->second;
    if (!v->is_constant()) return nullptr;
    const Tensor& t = *v->constant;
    if ((t.dtype() != DType::kI64 && t.dtype() != DType::kI32) ||
        t.num_elements() > kMaxShapeValueElements)
      return nullptr;
    std::vector<int64_t> vals;
    for (int64_t i = 0; i < t.num_elements(); ++i) vals.push_back(t.get_i64(i));
    return &(values[v] = std::move(vals));
  };

  std::vector<Node*> order;
  for (const auto& n : g.nodes()) order.push_back(n.get());
  for (Node* n : order) {
    std::vector<TensorType> types = ops::op_info(n->op).infer(*n);
    for (size_t i = 0; i < types.size(); ++i) n->outputs[i]->type = std::move(types[i]);
    std::optional<std::vector<int64_t>> vals = propagate_shape_value(*n, known);
    if (!vals && evaluate && foldable(*n)) {
      std::vector<TensorPtr> folded = evaluate(*n);
      if (folded.size() != n->outputs.size()) continue;
      for (size_t i = 0; i < folded.size(); ++i) {
        Value* old = n->outputs[i];
        g.replace_all_uses(old, g.add_constant(old->name, folded[i]));
      }
      g.remove_node(n);
      continue;
    }
    if (!vals) continue;
    Value* old = n->outputs[0];
    Value* c = g.add_constant(old->name, make_int_tensor(old->type, *vals));
    values[c] = std::move(*vals);
    g.replace_all_uses(old, c);
    g.remove_node(n);
  }
}

}  // namespace ingot::graph
