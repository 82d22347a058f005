// Swish (opset 24: Y = X * sigmoid(alpha * X)) and SwiGLU (opset 28: Y = Swish_alpha(A) * B,
// A and B of one shape: SwiGLU does not broadcast). Inference makes `alpha` explicit (default 1).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

void require_float(const Node& n, const TensorType& t, const char* what) {
  if (!is_float_dtype(t.dtype))
    fail_user("{}: input '{}' must be a float tensor, got {}", n.describe(), what,
              dtype_name(t.dtype));
}

std::vector<TensorType> infer_swish(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_float(n, x, "X");
  n.attrs.set("alpha", n.attrs.get_float("alpha", 1.0));
  return {x};
}

std::vector<TensorType> infer_swiglu(Node& n) {
  const TensorType& a = input_type(n, 0, "A");
  const TensorType& b = input_type(n, 1, "B");
  require_float(n, a, "A");
  require_same_dtype(n, a, b, "A", "B");
  if (a.rank() != b.rank())
    fail_user("{}: inputs 'A' {} and 'B' {} must have the same shape (SwiGLU does not broadcast)",
              n.describe(), a.str(), b.str());
  TensorType y = a;
  for (size_t i = 0; i < y.shape.size(); ++i)
    y.shape[i] = merge_dims(n, a.shape[i], b.shape[i],
                            fmt::format("dim {} of 'A' and 'B' (SwiGLU does not broadcast)", i));
  n.attrs.set("alpha", n.attrs.get_float("alpha", 1.0));
  return {y};
}

template <int kPerElement>
double per_element_flops(const Node& n) {
  return kPerElement * approx_elements(n.outputs[0]->type);
}

}  // namespace

void add_swish_ops(std::vector<OpInfo>& t) {
  OpInfo swish{OpKind::Swish, "Swish", PatternKind::kElementwise, {{"alpha", AttrType::kFloat}}};
  swish.infer_fn = infer_swish;
  swish.flops_fn = per_element_flops<4>;
  t.push_back(swish);

  OpInfo swiglu{OpKind::SwiGLU, "SwiGLU", PatternKind::kElementwise, {{"alpha", AttrType::kFloat}}};
  swiglu.min_inputs = swiglu.max_inputs = 2;
  swiglu.infer_fn = infer_swiglu;
  swiglu.flops_fn = per_element_flops<5>;
  t.push_back(swiglu);
}

}  // namespace ingot::ops::detail
