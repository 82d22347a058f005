// fold_transpose_matmul: a Transpose feeding a MatMul operand is not copied; the MatMul reads
// the Transpose's input through the permutation (attributes perm_a / perm_b, see
// docs/graph-forms.md), which the packed-matmul kernel applies while it packs the operand:
//   MatMul(Transpose(X, p), B)  =>  MatMul(X, B, perm_a = p)      (B: perm_b likewise)
// A MatMul that already has a permutation q on that operand composes it (view dim d = X dim
// p[q[d]]), so chains of Transposes fold into one; a composed identity drops the attribute.
// Legal where the operand has rank >= 2 (no 1-D promotion) and X is not a constant (a constant
// transpose is folded by constant folding, and a constant B is packed at compile time) unless
// the MatMul's output has symbolic dims (its product reads the constant through the view). The
// Transpose stays while other nodes read it (dead_code removes it otherwise).
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fold_transpose_matmul(Graph& g);

}  // namespace ingot::graph
