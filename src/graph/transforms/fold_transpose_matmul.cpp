// fold_transpose_matmul (see fold_transpose_matmul.h).
#include "graph/transforms/fold_transpose_matmul.h"

namespace ingot::graph {

namespace {

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t d = 0; d < perm.size(); ++d)
    if (perm[d] != int64_t(d)) return false;
  return true;
}

// Folds the Transpose producing `n`'s operand i (0: A, 1: B) when legal; true when it did.
bool fold_operand(Node* n, size_t i) {
  const char* attr = i == 0 ? "perm_a" : "perm_b";
  Value* y = n->inputs[i];
  Node* t = y->producer;
  if (t == nullptr || t->op != ops::OpKind::Transpose || y->type.rank() < 2) return false;
  Value* x = t->inputs[0];
  // A constant operand keeps its Transpose for constant folding and packing, unless the
  // product is over symbolic dims (no packing): there the permuted read of the constant beats
  // transposing a large weight on every call (a tied LM head, 154 MB in GPT-2).
  if (x->is_constant() && n->outputs.at(0)->type.is_static()) return false;
  std::vector<int64_t> p = t->attrs.get_ints("perm");
  if (p.size() != size_t(y->type.rank())) return false;  // inference fills perm; be safe
  std::vector<int64_t> q = n->attrs.get_ints(attr);
  if (q.empty())
    for (size_t d = 0; d < p.size(); ++d) q.push_back(int64_t(d));
  std::vector<int64_t> r;
  for (int64_t d : q) r.push_back(p[size_t(d)]);
  n->inputs[i] = x;
  if (is_identity(r)) {
    n->attrs.erase(attr);
  } else {
    n->attrs.set(attr, r);
  }
  n->fused.push_back("Transpose");
  return true;
}

}  // namespace

void fold_transpose_matmul(Graph& g) {
  for (const auto& n : g.nodes()) {
    if (n->op != ops::OpKind::MatMul || n->inputs.size() < 2) continue;
    for (size_t i = 0; i < 2; ++i)
      while (fold_operand(n.get(), i)) {
      }
  }
}

}  // namespace ingot::graph
