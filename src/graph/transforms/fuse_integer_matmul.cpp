// fuse_integer_matmul (see fuse_integer_matmul.h).
#include "graph/transforms/fuse_integer_matmul.h"

#include <optional>

#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"

namespace ingot::graph {

namespace {

using ops::OpKind;

bool is_8bit(DType d) {
  return d == DType::kU8 || d == DType::kI8;
}

// The 8-bit value `v` widens (Cast to int32 of a uint8 / int8 value), or null.
Value* widened_8bit(const Value* v) {
  const Node* c = v ? v->producer : nullptr;
  if (c == nullptr || c->op != OpKind::Cast || v->type.dtype != DType::kI32 ||
      !is_8bit(c->inputs[0]->type.dtype))
    return nullptr;
  return c->inputs[0];
}

// A constant whose every element is 0.
bool all_zero(const Value* v) {
  if (v == nullptr || !v->is_constant()) return false;
  for (int64_t i = 0; i < v->constant->num_elements(); ++i)
    if (v->constant->get_i64(i) != 0) return false;
  return true;
}

// B's values as an int8 [K, N] constant when they are int8: a constant (int32 after folding,
// or int8), Cast<int32> of one, either less an all-zero zero point.
std::optional<std::vector<int8_t>> int8_weights(const Value* v) {
  if (v && v->producer && v->producer->op == OpKind::Sub && all_zero(v->producer->inputs[1]))
    v = v->producer->inputs[0];
  if (v && v->producer && v->producer->op == OpKind::Cast && v->type.dtype == DType::kI32)
    v = v->producer->inputs[0];
  if (v && v->producer && v->producer->op == OpKind::Sub && all_zero(v->producer->inputs[1]))
    v = v->producer->inputs[0];  // (the zero point subtracted before the cast)
  if (v == nullptr || !v->is_constant() || v->type.rank() != 2 || v->type.dtype == DType::kU8)
    return std::nullopt;
  std::vector<int8_t> q;
  for (int64_t i = 0; i < v->constant->num_elements(); ++i) {
    int64_t x = v->constant->get_i64(i);
    if (x < -128 || x > 127) return std::nullopt;
    q.push_back(int8_t(x));
  }
  return q;
}

bool try_fuse(Graph& g, Node* mm) {
  if (mm->inputs.size() != 2 || mm->outputs[0]->type.dtype != DType::kI32) return false;
  // A: Cast<int32>(a8), or that less the zero point.
  Value* a_side = mm->inputs[0];
  Value* zero_point = nullptr;
  Value* a = widened_8bit(a_side);
  if (a == nullptr && a_side->producer && a_side->producer->op == OpKind::Sub) {
    a = widened_8bit(a_side->producer->inputs[0]);
    zero_point = a_side->producer->inputs[1];
    if (all_zero(zero_point)) zero_point = nullptr;
  }
  const Value* bv = mm->inputs[1];
  if (a == nullptr || bv->type.rank() != 2 || !bv->type.is_static()) return false;
  std::optional<std::vector<int8_t>> q = int8_weights(bv);
  if (!q) return false;
  const int64_t k = bv->type.shape[0].value, n = bv->type.shape[1].value;
  Value* weights = g.add_constant(mm->name + "_int8_weights",
                                  tensor_from_bytes(DType::kI8, {k, n}, q->data(), q->size()));
  Node* product = g.add_node(OpKind::IntMatMul, mm->name + "_int8", {a, weights},
                             {mm->outputs[0]->name + "_acc"});
  product->opset = mm->opset;
  product->outputs[0]->type = mm->outputs[0]->type;
  Node* last = product;
  if (zero_point != nullptr) {
    std::vector<int32_t> colsum(size_t(n), 0);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t j = 0; j < n; ++j) colsum[size_t(j)] += (*q)[size_t(r * n + j)];
    Value* sums =
        g.add_constant(mm->name + "_column_sums",
                       tensor_from_bytes(DType::kI32, {n}, colsum.data(), colsum.size() * 4));
    Node* offset = g.add_node(OpKind::Mul, mm->name + "_zero_point_term", {zero_point, sums},
                              {mm->outputs[0]->name + "_zero_point_term"});
    Node* centred =
        g.add_node(OpKind::Sub, mm->name + "_centred", {product->outputs[0], offset->outputs[0]},
                   {mm->outputs[0]->name + "_centred"});
    offset->opset = centred->opset = mm->opset;
    for (Node* added : {offset, centred})
      added->outputs[0]->type = ops::op_info(added->op).infer(*added)[0];
    last = centred;
  }
  replace_pattern(g, {mm}, mm, last);
  return true;
}

}  // namespace

void fuse_integer_matmul(Graph& g) {
  rewrite_to_fixpoint(g, OpKind::MatMul, try_fuse);
  g.remove_dead();
}

}  // namespace ingot::graph
