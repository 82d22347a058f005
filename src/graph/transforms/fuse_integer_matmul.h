// fuse_integer_matmul: MatMulInteger's int32 product (the importer's form:
// MatMul(Cast<int32>(a) - a_zero_point, Cast<int32>(B)), ONNX Runtime's dynamic quantization)
// becomes the 8-bit product IntMatMul(a, B) that the int8 kernels take (rules/int8_matmul.h),
// where B is a constant whose values are int8 (its zero point 0 or absent): the activation's zero
// point, a run-time scalar or one per row, comes off afterwards, exactly,
//   sum_k (a - za) b = sum_k a b - za * colsum(b),
// as int32 Sub(IntMatMul, Mul(za, colsum)) with colsum(b) a constant [N]. B may arrive as the
// int8 constant widened by a Cast, or already folded to int32 constants.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void fuse_integer_matmul(Graph& g);

}  // namespace ingot::graph
