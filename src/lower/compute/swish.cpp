// Compute rule of Swish (y = x * sigmoid(alpha * x)) and SwiGLU (y = Swish_alpha(a) * b, a and b
// of one shape): one vectorizable store per element, float16 evaluated in float32 and rounded
// once.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_swish(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  bool glu = node.op == ops::OpKind::SwiGLU;
  INGOT_ICHECK(!glu || (inputs.size() > 1 && inputs[1].defined()), "{}: no input B",
               node_label(node));
  double alpha = node.attrs.get_float("alpha", 1.0);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr a = widen(x.load(idx));
    // alpha = 1 (SiLU) multiplies by nothing: x * 1 is x in IEEE arithmetic.
    Expr v = a * sigmoid(alpha == 1.0 ? a : a * make_const(a.dtype(), alpha));
    if (glu) v = v * widen(inputs[1].load(idx));
    return BufferStore::make(y, cast(y->dtype, v), idx);
  });
}

}  // namespace ingot::lower
