// fuse_epilogue (see fuse_epilogue.h).
#include "graph/transforms/fuse_epilogue.h"

#include <limits>

#include "graph/transforms/rewrite_util.h"
#include "ops/op.h"

namespace ingot::graph {

namespace {

bool has(const Node* n, size_t i) {
  return n->inputs.size() > i && n->inputs[i] != nullptr;
}

// A constant that broadcasts as one row over the last dim of `y` (static; the leading dims may be
// symbolic): shape [.., 1, N].
bool bias_row(const Value* c, const Value* y) {
  if (c == nullptr || !c->is_constant() ||
      (c->type.dtype != DType::kF32 && c->type.dtype != DType::kF16) ||
      c->type.dtype != y->type.dtype || c->type.rank() > y->type.rank() || c->type.rank() == 0 ||
      !y->type.shape.back().is_static())
    return false;
  const auto& cs = c->type.shape;
  for (size_t i = 0; i + 1 < cs.size(); ++i)
    if (!(cs[i].is_static() && cs[i].value == 1)) return false;
  return cs.back() == y->type.shape.back();
}

// One fusion step for `n` (a Conv or MatMul); true when something was fused.
bool fuse_one(Graph& g, Node* n) {
  if (n->attrs.has("activation")) return false;  // the activation ends the epilogue
  Node* u = single_user(g, n->outputs[0]);
  if (u == nullptr) return false;
  const Value* y = n->outputs[0];
  switch (u->op) {
    case ops::OpKind::Add: {
      if (u->outputs[0]->type != y->type) return false;
      Value* other = u->inputs[0] == y ? u->inputs[1] : u->inputs[0];
      if (other == nullptr) return false;
      if (n->op == ops::OpKind::MatMul && !has(n, 2) && !has(n, 3) && bias_row(other, y)) {
        // The row's elements (its first: the leading dims are ones), in its dtype.
        int64_t cols = y->type.shape.back().value;
        const uint8_t* data = other->constant->data();
        std::vector<uint8_t> row(data, data + cols * dtype_bytes(other->type.dtype));
        n->inputs.resize(3, nullptr);
        n->inputs[2] = g.add_constant(
            other->name + "_row",
            std::make_shared<Tensor>(other->type.dtype, std::vector<int64_t>{cols}, row));
      } else if (!has(n, 3) && other->type == y->type) {
        n->inputs.resize(4, nullptr);
        n->inputs[3] = other;
      } else {
        return false;
      }
      break;
    }
    case ops::OpKind::Relu:
      n->attrs.set("activation", std::string("Relu"));
      break;
    case ops::OpKind::Gelu:
      if (u->attrs.get_string("approximate", "none") != "none") return false;
      n->attrs.set("activation", std::string("Gelu"));
      break;
    case ops::OpKind::Clip: {
      double lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
      if (u->inputs.size() > 1 && u->inputs[1] && !scalar_value(u->inputs[1], &lo)) return false;
      if (u->inputs.size() > 2 && u->inputs[2] && !scalar_value(u->inputs[2], &hi)) return false;
      n->attrs.set("activation", std::string("Clip"));
      n->attrs.set("activation_params", std::vector<double>{lo, hi});
      break;
    }
    default:
      // One-input activations applied by their own compute rule (ops::is_epilogue_activation),
      // their float attributes carried as activation_<name>.
      if (!ops::is_epilogue_activation(u->op) || u->inputs.size() != 1 ||
          u->outputs[0]->type != y->type)
        return false;
      n->attrs.set("activation", std::string(ops::op_name(u->op)));
      for (const char* a : {"alpha", "beta", "gamma"})
        if (u->attrs.has(a))
          n->attrs.set(std::string("activation_") + a, u->attrs.get_float(a, 0.0));
      break;
  }
  absorb_consumer(g, n, u);
  return true;
}

}  // namespace

void fuse_epilogue(Graph& g) {
  std::vector<Node*> convs;
  for (const auto& n : g.nodes())
    if ((n->op == ops::OpKind::Conv || n->op == ops::OpKind::MatMul) &&
        (n->outputs[0]->type.dtype == DType::kF32 ||
         (n->op == ops::OpKind::MatMul && n->outputs[0]->type.dtype == DType::kF16)))
      convs.push_back(n.get());
  bool changed = false;
  for (Node* c : convs)
    while (fuse_one(g, c)) changed = true;
  // A residual input may be produced after the Conv in node order.
  if (changed) g.topo_sort();
}

}  // namespace ingot::graph
