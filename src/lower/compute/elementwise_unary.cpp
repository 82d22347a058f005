// Compute rule of the elementwise unary ops (activations, math functions, Clip, Gelu, Cast):
// one vectorizable store per output element.
#include <cmath>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

bool is_float_only(OpKind op) {
  switch (op) {
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Erf:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Reciprocal:
    case OpKind::Gelu:
      return true;
    default:
      return false;
  }
}

Expr gelu(const graph::Node& node, Expr x) {
  std::string approx = node.attrs.get_string("approximate", "none");
  if (approx == "tanh") {
    double k = std::sqrt(2.0 / M_PI);
    Expr inner = (x + x * x * x * 0.044715) * k;
    return x * 0.5 * (tanh(inner) + 1.0);
  }
  if (approx != "none") fail_user("{}: unknown Gelu approximation '{}'", node_label(node), approx);
  return x * 0.5 * (erf(x * M_SQRT1_2) + 1.0);
}

// Clip bounds: the optional scalar inputs, or the dtype's range.
Expr clip(const std::vector<Buffer>& in, Expr x) {
  if (in.size() > 1 && in[1].defined()) x = max(x, in[1].load(scalar_index(in[1])));
  if (in.size() > 2 && in[2].defined()) x = min(x, in[2].load(scalar_index(in[2])));
  return x;
}

Expr apply(const graph::Node& node, const std::vector<Buffer>& in, DataType out_dtype, Expr x) {
  DataType d = x.dtype();
  switch (node.op) {
    case OpKind::Relu:
      return max(x, make_const(d, 0));
    case OpKind::Sigmoid:
      return sigmoid(x);
    case OpKind::Tanh:
      return tanh(x);
    case OpKind::Erf:
      return erf(x);
    case OpKind::Exp:
      return exp(x);
    case OpKind::Log:
      return log(x);
    case OpKind::Sqrt:
      return sqrt(x);
    case OpKind::Reciprocal:
      return make_const(d, 1) / x;
    case OpKind::Neg:
      return -x;
    case OpKind::Abs:
      return d.is_float() ? fabs(x) : select(x < make_const(d, 0), -x, x);
    case OpKind::Clip:
      return clip(in, x);
    case OpKind::Gelu:
      return gelu(node, x);
    case OpKind::Cast:
      return onnx_cast(out_dtype, x);
    default:
      fail_internal("{} is not an elementwise unary op", node_label(node));
  }
}

}  // namespace

Stmt compute_unary(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  if (node.op == OpKind::Cast) {
    check_dtype(node, x, DTypeClass::kAny);
    check_dtype(node, y, DTypeClass::kAny);
  } else {
    check_dtype(node, x, is_float_only(node.op) ? DTypeClass::kFloat : DTypeClass::kNumeric);
  }
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr v = apply(node, inputs, y->dtype, x.load(broadcast_index(x, idx)));
    return BufferStore::make(y, v, idx);
  });
}

}  // namespace ingot::lower
