// Compute rule of the activation ops (LeakyRelu, PRelu, Elu, Selu, Celu, HardSigmoid, HardSwish,
// Softplus, Softsign, Mish, ThresholdedRelu, Shrink): one store per element. Attributes carry
// their defaults after type inference; Softplus uses the overflow-free max(x,0) + log(1 +
// exp(-|x|)). Shrink of an integer X computes in float64 and truncates, as ONNX's reference.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

Expr softplus(Expr x) {
  Expr zero = make_const(x.dtype(), 0);
  return max(x, zero) + log(exp(-fabs(x)) + 1.0);
}

Expr apply_op(const graph::Node& node, Expr x, Expr slope) {
  DataType d = x.dtype();
  auto attr = [&](const char* name, double def) {
    return make_const(d, node.attrs.get_float(name, def));
  };
  Expr zero = make_const(d, 0), one = make_const(d, 1);
  switch (node.op) {
    case OpKind::LeakyRelu:
      return select(x < zero, x * attr("alpha", 0.01), x);
    case OpKind::PRelu:
      return select(x < zero, x * slope, x);
    case OpKind::Elu:
      return select(x < zero, (exp(x) - 1.0) * attr("alpha", 1.0), x);
    case OpKind::Selu: {
      Expr alpha = attr("alpha", 1.67326319217681884765625);
      Expr gamma = attr("gamma", 1.05070102214813232421875);
      return select(x > zero, x, exp(x) * alpha - alpha) * gamma;
    }
    case OpKind::Celu: {
      Expr alpha = attr("alpha", 1.0);
      return max(x, zero) + min(zero, (exp(x / alpha) - 1.0) * alpha);
    }
    case OpKind::HardSigmoid:
      return max(zero, min(one, x * attr("alpha", 0.2) + attr("beta", 0.5)));
    case OpKind::HardSwish:
      return x * max(zero, min(one, x * (1.0 / 6.0) + 0.5));
    case OpKind::Softplus:
      return softplus(x);
    case OpKind::Softsign:
      return x / (fabs(x) + 1.0);
    case OpKind::Mish:
      return x * tanh(softplus(x));
    case OpKind::ThresholdedRelu:
      return select(x > attr("alpha", 1.0), x, zero);
    case OpKind::Shrink: {
      Expr lambd = attr("lambd", 0.5), bias = attr("bias", 0.0);
      return select(x < -lambd, x + bias, select(x > lambd, x - bias, zero));
    }
    default:
      fail_internal("{} is not an activation op", node_label(node));
  }
}

}  // namespace

Stmt compute_activation(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  if (node.op == OpKind::Shrink) {
    check_dtype(node, x, DTypeClass::kNumeric);
    if (!x->dtype.is_float()) {
      return loop_nest(y->shape, "i", [&](const Index& idx) {
        Expr v = apply_op(node, cast(DataType::f64(), x.load(idx)), Expr());
        return BufferStore::make(y, cast(y->dtype, v), idx);
      });
    }
  } else {
    check_dtype(node, x, DTypeClass::kFloat);
  }
  bool prelu = node.op == OpKind::PRelu;
  if (prelu && inputs.at(1)->dtype != x->dtype)
    fail_user("{}: operand dtypes differ ({} vs {})", node_label(node), x->dtype.str(),
              inputs[1]->dtype.str());
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr slope = prelu ? inputs[1].load(broadcast_index(inputs[1], idx)) : Expr();
    return BufferStore::make(y, apply_op(node, x.load(idx), slope), idx);
  });
}

}  // namespace ingot::lower
