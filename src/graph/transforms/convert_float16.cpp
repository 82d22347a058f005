// convert_float16 (see convert_float16.h).
#include "graph/transforms/convert_float16.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "graph/tensor.h"
#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"
#include "support/half.h"

namespace ingot::graph {

namespace {

// Each use of `v` as a node input: (node, input index).
std::vector<std::pair<Node*, size_t>> uses_of(const Graph& g, const Value* v) {
  std::vector<std::pair<Node*, size_t>> out;
  for (Node* n : g.users(v))
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (n->inputs[i] == v) out.emplace_back(n, i);
  return out;
}

Node* cast_node(Graph& g, Value* from, DType to, const std::string& name) {
  Attrs attrs;
  attrs.set("to", int64_t(to));
  return g.add_node(ops::OpKind::Cast, fresh_value_name(g, name), {from},
                    {fresh_value_name(g, name)}, attrs);
}

}  // namespace

Float16Stats convert_float16(Graph& g) {
  Float16Stats stats;
  std::vector<Value*> outputs = g.outputs;
  // 1. Constants read by nodes (not a graph output as well).
  std::vector<Value*> constants;  // in first-use order (deterministic names and stats)
  std::set<const Value*> seen;
  for (const auto& n : g.nodes())
    for (Value* v : n->inputs)
      if (v != nullptr && v->is_constant() && v->type.dtype == DType::kF32 &&
          std::count(outputs.begin(), outputs.end(), v) == 0 && seen.insert(v).second)
        constants.push_back(v);
  for (Value* v : constants) {
    TensorPtr half = half_width_constant(*v->constant, DType::kF16, double_to_half_bits);
    stats.constant_bytes_saved += v->constant->nbytes() - half->nbytes();
    v->constant = half;
    v->type.dtype = DType::kF16;
    ++stats.constants;
  }
  // 2. Nodes that make float32 of their own accord make float16.
  for (const auto& n : g.nodes()) {
    const bool makes_f32 =
        !n->outputs.empty() && n->outputs[0] != nullptr && n->outputs[0]->type.dtype == DType::kF32;
    if (n->op == ops::OpKind::Cast && n->attrs.get_int("to", -1) == int64_t(DType::kF32))
      n->attrs.set("to", int64_t(DType::kF16));
    else if (makes_f32 && (n->attrs.has("dtype") || n->op == ops::OpKind::ConstantOfShape))
      n->attrs.set("dtype", int64_t(DType::kF16));
  }
  // 3. Float32 inputs enter through a Cast to float16.
  for (Value* in : g.inputs) {
    if (in->type.dtype != DType::kF32) continue;
    auto uses = uses_of(g, in);
    if (uses.empty()) continue;
    Node* cast = cast_node(g, in, DType::kF16, in->name + "_float16");
    for (const auto& [node, i] : uses) node->inputs[i] = cast->outputs[0];
    ++stats.inputs;
  }
  // 4. Float32 outputs leave through a Cast back to float32, which takes over the output value
  // (its name is the artifact's interface); the producer writes a float16 value instead.
  for (Value* out : outputs) {
    if (out->type.dtype != DType::kF32 || out->producer == nullptr) continue;
    Node* producer = out->producer;
    Value* inner = g.add_value(fresh_value_name(g, out->name + "_float16"), out->type);
    inner->producer = producer;
    inner->output_index = out->output_index;
    producer->outputs[size_t(out->output_index)] = inner;
    for (const auto& [node, i] : uses_of(g, out)) node->inputs[i] = inner;
    Node* cast = cast_node(g, inner, DType::kF32, out->name + "_float32");
    cast->outputs[0] = out;
    out->producer = cast;
    out->output_index = 0;
    ++stats.outputs;
  }
  g.remove_dead();
  g.topo_sort();
  return stats;
}

}  // namespace ingot::graph
