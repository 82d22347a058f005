// Compute rule of the elementwise binary ops with numpy broadcasting (Add, Sub, Mul, Div, Pow).
// Integer Div truncates toward zero as ONNX specifies.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

Expr integer_pow(Expr a, Expr b) {
  Expr r = pow(cast(DataType::f64(), a), cast(DataType::f64(), b));
  return cast(a.dtype(), call(Intrinsic::round, {r}));
}

Expr apply(const graph::Node& node, Expr a, Expr b) {
  bool is_float = a.dtype().is_float();
  switch (node.op) {
    case OpKind::Add:
      return a + b;
    case OpKind::Sub:
      return a - b;
    case OpKind::Mul:
      return a * b;
    case OpKind::Div:
      return is_float ? a / b : trunc_div(a, b);
    case OpKind::Pow:
      // ONNX lets the exponent have another numeric dtype.
      if (is_float) return pow(a, cast(a.dtype(), b));
      return integer_pow(a, cast(a.dtype(), b));
    default:
      fail_internal("{} is not an elementwise binary op", node_label(node));
  }
}

}  // namespace

Stmt compute_binary(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, a, DTypeClass::kNumeric);
  check_dtype(node, b, DTypeClass::kNumeric);
  if (node.op != OpKind::Pow && a->dtype != b->dtype)
    fail_user("{}: operand dtypes differ ({} vs {})", node_label(node), a->dtype.str(),
              b->dtype.str());
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr v = apply(node, a.load(broadcast_index(a, idx)), b.load(broadcast_index(b, idx)));
    return BufferStore::make(y, v, idx);
  });
}

}  // namespace ingot::lower
