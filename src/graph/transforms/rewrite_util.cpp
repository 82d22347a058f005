// Graph-rewrite helpers (see rewrite_util.h).
#include "graph/transforms/rewrite_util.h"

#include <algorithm>
#include <cstring>

#include "ops/op.h"
#include "support/error.h"

namespace ingot::graph {

Node* single_user(const Graph& g, const Value* v) {
  if (std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end()) return nullptr;
  std::vector<Node*> users = g.users(v);
  if (users.size() != 1) return nullptr;
  Node* u = users[0];
  if (std::count(u->inputs.begin(), u->inputs.end(), v) != 1) return nullptr;
  return u;
}

void absorb_consumer(Graph& g, Node* producer, Node* consumer) {
  INGOT_ICHECK(producer->outputs.size() == 1 && !consumer->outputs.empty(),
               "absorb_consumer: {} into {}", consumer->describe(), producer->describe());
  Value* mid = producer->outputs[0];
  Value* out = consumer->outputs[0];
  INGOT_ICHECK(mid->type == out->type, "absorb_consumer: {} changes the type",
               consumer->describe());
  producer->fused.push_back(ops::op_name(consumer->op));
  producer->fused.insert(producer->fused.end(), consumer->fused.begin(), consumer->fused.end());
  producer->outputs[0] = out;
  out->producer = producer;
  out->output_index = 0;
  consumer->outputs[0] = mid;
  mid->producer = consumer;
  consumer->inputs.clear();
  g.remove_node(consumer);
}

TensorPtr f32_constant(std::vector<int64_t> shape, const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return std::make_shared<Tensor>(DType::kF32, std::move(shape), std::move(bytes));
}

TensorPtr half_width_constant(const Tensor& t, DType dtype, uint16_t (*bits)(double)) {
  const int64_t n = t.num_elements();
  std::vector<uint8_t> bytes(size_t(n) * 2);
  for (int64_t i = 0; i < n; ++i) {
    const uint16_t h = bits(t.get_f64(i));
    bytes[size_t(2 * i)] = uint8_t(h & 0xff);
    bytes[size_t(2 * i + 1)] = uint8_t(h >> 8);
  }
  return std::make_shared<Tensor>(dtype, t.shape(), std::move(bytes));
}

std::string fresh_value_name(const Graph& g, const std::string& base) {
  std::string name = base;
  for (int k = 1; g.find_value(name) != nullptr; ++k) name = base + "_" + std::to_string(k);
  return name;
}

void set_output_types(Node& n) {
  std::vector<TensorType> types = ops::op_info(n.op).infer(n);
  for (size_t i = 0; i < types.size(); ++i) n.outputs[i]->type = types[i];
}

}  // namespace ingot::graph

namespace ingot::graph {

Node* producer_if(const Graph& g, const Value* v, ops::OpKind op, const Node* reader) {
  if (v == nullptr || v->producer == nullptr || v->producer->op != op) return nullptr;
  if (single_user(g, v) != reader) return nullptr;
  return v->producer;
}

bool scalar_value(const Value* v, double* out) {
  if (v == nullptr || !v->is_constant() || v->type.num_elements() != 1) return false;
  *out = v->constant->get_f64(0);
  return true;
}

void replace_pattern(Graph& g, const std::vector<Node*>& matched, Node* last, Node* replacement) {
  Value* result = last->outputs[0];
  Value* scratch = replacement->outputs[0];
  INGOT_ICHECK(scratch->type == result->type || scratch->type.shape.empty(),
               "replace_pattern: {} does not produce {}", replacement->describe(), result->name);
  replacement->outputs[0] = result;
  result->producer = replacement;
  result->output_index = 0;
  last->outputs[0] = scratch;
  scratch->producer = last;
  // With their inputs cleared, the matched nodes' outputs have no readers left (the matchers
  // check that nothing outside the set reads them).
  for (Node* m : matched) {
    replacement->fused.push_back(ops::op_name(m->op));
    replacement->fused.insert(replacement->fused.end(), m->fused.begin(), m->fused.end());
  }
  for (Node* n : matched) n->inputs.clear();
  for (Node* n : matched) g.remove_node(n);
  g.topo_sort();
}

void rewrite_to_fixpoint(Graph& g, ops::OpKind anchor,
                         const std::function<bool(Graph&, Node*)>& try_rewrite) {
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<Node*> anchors;
    for (const auto& n : g.nodes())
      if (n->op == anchor) anchors.push_back(n.get());
    for (Node* n : anchors)
      if (try_rewrite(g, n)) {
        changed = true;
        break;  // the node list changed
      }
  }
}

}  // namespace ingot::graph
