// fold_gemm_alpha: a Gemm with a constant float32 B and alpha != 1 gets B' = alpha * B (computed
// at compile time in double precision) and alpha = 1, so the product is the plain dense product
// that lowering describes as one block and the dense matmul rule packs (Y = A B' + beta C).
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fold_gemm_alpha(Graph& g);

}  // namespace ingot::graph
