// The views a dense product (compute/matmul_operand.h is_dense_product) is described on: row-major
// reshapes of its parameters, the same bytes. With a 2-D B, A's leading dims are rows (A as
// [M, K], Y and a fused summand of Y's shape as [M, N]; A read through a transposed view keeps
// them as batch dims sharing B); batched, the batch dims of A, B, Y and the summand flattened
// into one where the operand's view keeps them in place (an operand read as it is keeps its
// own, and then with more than one batch dim of extent > 1 nothing is flattened).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "graph/graph.h"

namespace ingot::lower {

// The values given another shape, and that shape; the others keep theirs.
std::map<const graph::Value*, std::vector<int64_t>> product_view_shapes(const graph::Node& node);

}  // namespace ingot::lower
