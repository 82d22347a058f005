// The op-kind -> compute-rule table.
#include "lower/compute/compute.h"

#include "support/error.h"

namespace ingot::lower {

ComputeRule compute_rule(ops::OpKind op) {
  using ops::OpKind;
  switch (op) {
    case OpKind::Relu:
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Reciprocal:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Clip:
    case OpKind::Gelu:
    case OpKind::Cast:
      return compute_unary;
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Pow:
      return compute_binary;
    case OpKind::Conv:
      return compute_conv;
    case OpKind::Gemm:
      return compute_gemm;
    case OpKind::MatMul:
      return compute_matmul;
    case OpKind::BatchNormalization:
      return compute_batch_norm;
    case OpKind::LayerNormalization:
      return compute_layer_norm;
    case OpKind::Softmax:
      return compute_softmax;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return compute_pool;
    case OpKind::GlobalAveragePool:
      return compute_global_avg_pool;
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
      return compute_reduce;
    case OpKind::Identity:
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return compute_copy;
    case OpKind::Shape:
      return compute_shape;
    case OpKind::Transpose:
      return compute_transpose;
    case OpKind::Concat:
      return compute_concat;
    case OpKind::Split:
      return compute_split;
    case OpKind::Pad:
      return compute_pad;
    case OpKind::Gather:
      return compute_gather;
  }
  fail_internal("no compute rule for op kind {}", int(op));
}

bool is_row_major_copy(ops::OpKind op) {
  using ops::OpKind;
  return op == OpKind::Identity || op == OpKind::Flatten || op == OpKind::Reshape ||
         op == OpKind::Squeeze || op == OpKind::Unsqueeze;
}

}  // namespace ingot::lower
