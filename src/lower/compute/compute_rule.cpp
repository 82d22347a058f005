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
    case OpKind::Equal:
    case OpKind::Less:
    case OpKind::LessOrEqual:
    case OpKind::Greater:
    case OpKind::GreaterOrEqual:
    case OpKind::Not:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
    case OpKind::Where:
    case OpKind::IsNaN:
    case OpKind::IsInf:
      return compute_compare_logic;
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Sum:
    case OpKind::Mean:
    case OpKind::Mod:
    case OpKind::BitShift:
    case OpKind::Sign:
    case OpKind::Ceil:
    case OpKind::Floor:
    case OpKind::Round:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Asin:
    case OpKind::Acos:
    case OpKind::Atan:
    case OpKind::Sinh:
    case OpKind::Cosh:
    case OpKind::Asinh:
    case OpKind::Acosh:
    case OpKind::Atanh:
      return compute_elementwise_extra;
    case OpKind::LeakyRelu:
    case OpKind::PRelu:
    case OpKind::Elu:
    case OpKind::Selu:
    case OpKind::Celu:
    case OpKind::HardSigmoid:
    case OpKind::HardSwish:
    case OpKind::Softplus:
    case OpKind::Softsign:
    case OpKind::Mish:
    case OpKind::ThresholdedRelu:
      return compute_activation;
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
    case OpKind::InstanceNormalization:
      return compute_instance_norm;
    case OpKind::Softmax:
      return compute_softmax;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      return compute_pool;
    case OpKind::GlobalAveragePool:
      return compute_global_avg_pool;
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
    case OpKind::ReduceL1:
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare:
    case OpKind::ReduceLogSum:
    case OpKind::ReduceLogSumExp:
      return compute_reduce;
    case OpKind::ArgMax:
    case OpKind::ArgMin:
      return compute_arg_reduce;
    case OpKind::LogSoftmax:
    case OpKind::Hardmax:
      return compute_softmax_variant;
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
    case OpKind::ConstantOfShape:
      return compute_constant_of_shape;
    case OpKind::Size:
      return compute_size;
    case OpKind::Range:
      return compute_range;
    case OpKind::Slice:
      return compute_slice;
    case OpKind::Expand:
      return compute_expand;
    case OpKind::Tile:
      return compute_tile;
    case OpKind::Trilu:
      return compute_trilu;
    case OpKind::DepthToSpace:
    case OpKind::SpaceToDepth:
      return compute_depth_space;
    case OpKind::GatherElements:
      return compute_gather_elements;
  }
  fail_internal("no compute rule for op kind {}", int(op));
}

bool is_row_major_copy(ops::OpKind op) {
  using ops::OpKind;
  return op == OpKind::Identity || op == OpKind::Flatten || op == OpKind::Reshape ||
         op == OpKind::Squeeze || op == OpKind::Unsqueeze;
}

}  // namespace ingot::lower
