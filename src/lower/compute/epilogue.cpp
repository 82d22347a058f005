// Fused conv epilogue (see epilogue.h).
#include "lower/compute/epilogue.h"

#include <cmath>

#include "lower/compute/common.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

bool has_epilogue(const graph::Node& node) {
  return (node.inputs.size() > 3 && node.inputs[3] != nullptr) || node.attrs.has("activation");
}

Expr apply_epilogue(const graph::Node& node, Expr value, Expr z) {
  if (z.defined()) value = value + z;
  std::string act = node.attrs.get_string("activation", "");
  DataType dt = value.dtype();
  if (act == "Relu") return max(value, make_const(dt, 0));
  if (act == "Clip") {
    std::vector<double> p = node.attrs.get_floats("activation_params", {});
    INGOT_ICHECK(p.size() == 2, "{}: fused Clip without bounds", node_label(node));
    return min(max(value, make_const(dt, p[0])), make_const(dt, p[1]));
  }
  if (act == "Gelu")
    return value * make_const(dt, 0.5) *
           (erf(value * make_const(dt, M_SQRT1_2)) + make_const(dt, 1.0));
  INGOT_ICHECK(act.empty(), "{}: unknown fused activation '{}'", node_label(node), act);
  return value;
}

Stmt epilogue_pass(const graph::Node& node, const Buffer& y, const Buffer& bias, const Buffer& z) {
  return loop_nest(const_shape(y), "e", [&](const Index& i) {
    Expr v = y.load(i);
    if (bias.defined()) v = v + bias.load({i.back()});
    return BufferStore::make(y, apply_epilogue(node, v, z.defined() ? z.load(i) : Expr()), i);
  });
}

}  // namespace ingot::lower
