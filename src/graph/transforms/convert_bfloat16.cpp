// convert_bfloat16 (see convert_bfloat16.h).
#include "graph/transforms/convert_bfloat16.h"

#include <cstring>
#include <map>
#include <string>

#include "graph/tensor.h"
#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"
#include "support/bfloat16.h"

namespace ingot::graph {

namespace {

// A float32 MatMul / Gemm of an activation A by a constant weight B.
bool is_weight_product(const Node& n) {
  if (n.op != ops::OpKind::MatMul && n.op != ops::OpKind::Gemm) return false;
  if (n.inputs.size() < 2 || n.inputs[0] == nullptr || n.inputs[1] == nullptr) return false;
  const Value* a = n.inputs[0];
  const Value* b = n.inputs[1];
  return !a->is_constant() && b->is_constant() && a->type.dtype == DType::kF32 &&
         b->type.dtype == DType::kF32 && n.outputs[0]->type.dtype == DType::kF32;
}

// A 2-D tensor [R, C] of 16-bit elements as [C, R].
TensorPtr transposed_16bit(const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  std::vector<uint8_t> out(size_t(rows * cols * 2));
  const uint8_t* src = t.data();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(out.data() + (c * rows + r) * 2, src + (r * cols + c) * 2, 2);
  return std::make_shared<Tensor>(t.dtype(), std::vector<int64_t>{cols, rows}, std::move(out));
}

}  // namespace

BFloat16Stats convert_bfloat16(Graph& g) {
  BFloat16Stats stats;
  // float32 constant (and whether a Gemm reads it transposed) -> its bfloat16 copy [K, N]
  std::map<std::pair<const Value*, bool>, Value*> weights;
  std::map<const Value*, Value*> activations;  // float32 activation -> its Cast to bfloat16
  std::vector<Node*> products;
  for (const auto& n : g.nodes())
    if (is_weight_product(*n)) products.push_back(n.get());
  for (Node* n : products) {
    Value* b = n->inputs[1];
    // A Gemm's transB: the copy stored [K, N], so the product reads it as MatMul's B (the
    // bfloat16 rule's panel layout and the pairs along K are laid out from that form).
    const bool transposed =
        n->op == ops::OpKind::Gemm && n->attrs.get_int("transB", 0) != 0 && b->type.rank() == 2;
    auto w = weights.find({b, transposed});
    if (w == weights.end()) {
      TensorPtr half = half_width_constant(*b->constant, DType::kBF16, double_to_bfloat16_bits);
      if (transposed) half = transposed_16bit(*half);
      stats.constant_bytes_saved += b->constant->nbytes() - half->nbytes();
      ++stats.constants;
      // A new value: the float32 constant may have other readers (they keep it; it is dropped
      // when it has none).
      w = weights
              .emplace(std::pair{b, transposed},
                       g.add_constant(fresh_value_name(g, b->name + "_bfloat16"), half))
              .first;
    }
    n->inputs[1] = w->second;
    if (transposed) n->attrs.set("transB", int64_t(0));
    Value* a = n->inputs[0];
    auto c = activations.find(a);
    if (c == activations.end()) {
      Attrs attrs;
      attrs.set("to", int64_t(DType::kBF16));
      const std::string name = fresh_value_name(g, a->name + "_bfloat16");
      Node* cast = g.add_node(ops::OpKind::Cast, name, {a}, {name}, attrs);
      c = activations.emplace(a, cast->outputs[0]).first;
    }
    n->inputs[0] = c->second;
    n->attrs.set("out_dtype", int64_t(DType::kF32));
    ++stats.products;
  }
  g.remove_dead();
  g.topo_sort();
  return stats;
}

}  // namespace ingot::graph
