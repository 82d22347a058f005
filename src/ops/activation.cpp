// Activation ops with float attributes: LeakyRelu, PRelu (slope broadcast to X), Elu, Selu, Celu,
// HardSigmoid, HardSwish, Softplus, Softsign, Mish, ThresholdedRelu, Shrink (any numeric X).
// Inference fills every attribute with its ONNX default, so compute rules read them without
// defaults.
#include "graph/types.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

struct FloatAttr {
  const char* name;
  double default_value;
};

// The float attributes of each op with their ONNX defaults.
std::vector<FloatAttr> float_attrs(OpKind k) {
  switch (k) {
    case OpKind::LeakyRelu:
      return {{"alpha", 0.01}};
    case OpKind::Elu:
    case OpKind::Celu:
    case OpKind::ThresholdedRelu:
      return {{"alpha", 1.0}};
    case OpKind::Selu:
      return {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}};
    case OpKind::HardSigmoid:
      return {{"alpha", 0.2}, {"beta", 0.5}};
    case OpKind::Shrink:
      return {{"bias", 0.0}, {"lambd", 0.5}};
    default:
      return {};
  }
}

std::vector<TensorType> infer_activation(Node& n) {
  const TensorType& x = input_type(n, 0, n.op == OpKind::Shrink ? "input" : "X");
  bool is_float = is_float_dtype(x.dtype);
  if (n.op == OpKind::Shrink) {
    if (x.dtype == DType::kBool)
      fail_user("{}: input 'input' must be numeric, got bool", n.describe());
  } else if (!is_float) {
    fail_user("{}: input 'X' must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  }
  for (const FloatAttr& a : float_attrs(n.op))
    n.attrs.set(a.name, n.attrs.get_float(a.name, a.default_value));
  return {x};
}

// PRelu: slope broadcasts unidirectionally to X.
std::vector<TensorType> infer_prelu(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& slope = input_type(n, 1, "slope");
  require_same_dtype(n, x, slope, "X", "slope");
  if (slope.rank() > x.rank() || broadcast_shapes(n, x.shape, slope.shape) != x.shape)
    fail_user("{}: input 'slope' {} does not broadcast to X {}", n.describe(), slope.str(),
              x.str());
  return {x};
}

template <int kPerElement>
double per_element_flops(const Node& n) {
  return kPerElement * approx_elements(n.outputs[0]->type);
}

OpInfo make(OpKind k, const char* name, double (*flops)(const Node&)) {
  OpInfo i{};
  i.kind = k;
  i.name = name;
  i.pattern = PatternKind::kElementwise;
  for (const FloatAttr& a : float_attrs(k)) i.attrs.push_back({a.name, AttrType::kFloat});
  i.infer_fn = infer_activation;
  i.flops_fn = flops;
  return i;
}

}  // namespace

void add_activation_ops(std::vector<OpInfo>& t) {
  t.push_back(make(OpKind::LeakyRelu, "LeakyRelu", per_element_flops<2>));
  OpInfo prelu = make(OpKind::PRelu, "PRelu", per_element_flops<2>);
  prelu.pattern = PatternKind::kBroadcast;
  prelu.min_inputs = prelu.max_inputs = 2;
  prelu.infer_fn = infer_prelu;
  t.push_back(prelu);
  t.push_back(make(OpKind::Elu, "Elu", per_element_flops<3>));
  t.push_back(make(OpKind::Selu, "Selu", per_element_flops<4>));
  t.push_back(make(OpKind::Celu, "Celu", per_element_flops<5>));
  t.push_back(make(OpKind::HardSigmoid, "HardSigmoid", per_element_flops<4>));
  t.push_back(make(OpKind::HardSwish, "HardSwish", per_element_flops<5>));
  t.push_back(make(OpKind::Softplus, "Softplus", per_element_flops<4>));
  t.push_back(make(OpKind::Softsign, "Softsign", per_element_flops<3>));
  t.push_back(make(OpKind::Mish, "Mish", per_element_flops<6>));
  t.push_back(make(OpKind::ThresholdedRelu, "ThresholdedRelu", per_element_flops<1>));
  t.push_back(make(OpKind::Shrink, "Shrink", per_element_flops<3>));
}

}  // namespace ingot::ops::detail
