// Index reductions and softmax variants: ArgMax, ArgMin (`axis`, `keepdims`, `select_last_index`;
// int64 output) and LogSoftmax, Hardmax (one `axis`, opset-13 semantics like Softmax).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_arg(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  require_rank_at_least(n, x, 1, "data");
  if (x.dtype == DType::kBool)
    fail_user("{}: input 'data' must be numeric, got bool", n.describe());
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), x.rank(), "axis");
  bool keepdims = n.attrs.get_int("keepdims", 1) != 0;
  n.attrs.set("axis", axis);
  n.attrs.set("keepdims", int64_t(keepdims));
  n.attrs.set("select_last_index", int64_t(n.attrs.get_int("select_last_index", 0) != 0));
  TensorType out{DType::kI64, {}};
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (i != axis)
      out.shape.push_back(x.shape[i]);
    else if (keepdims)
      out.shape.push_back(Dim::fixed(1));
  }
  return {out};
}

std::vector<TensorType> infer_softmax_like(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  require_rank_at_least(n, x, 1, "input");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  n.attrs.set("axis", normalize_axis(n, n.attrs.get_int("axis", -1), x.rank(), "axis"));
  return {x};
}

template <int kPerElement>
double per_input_element(const Node& n) {
  return kPerElement * approx_elements(n.inputs[0]->type);
}

OpInfo make(OpKind k, const char* name, PatternKind p, std::vector<AttrSpec> attrs,
            std::vector<TensorType> (*infer)(Node&), double (*flops)(const Node&)) {
  OpInfo i{};
  i.kind = k;
  i.name = name;
  i.pattern = p;
  i.attrs = std::move(attrs);
  i.infer_fn = infer;
  i.flops_fn = flops;
  return i;
}

}  // namespace

void add_reduction_extra_ops(std::vector<OpInfo>& t) {
  std::vector<AttrSpec> arg_attrs = {{"axis", AttrType::kInt},
                                     {"keepdims", AttrType::kInt},
                                     {"select_last_index", AttrType::kInt}};
  t.push_back(make(OpKind::ArgMax, "ArgMax", PatternKind::kReduction, arg_attrs, infer_arg,
                   per_input_element<1>));
  t.push_back(make(OpKind::ArgMin, "ArgMin", PatternKind::kReduction, arg_attrs, infer_arg,
                   per_input_element<1>));
  // max, subtract, exp, sum, log, subtract.
  t.push_back(make(OpKind::LogSoftmax, "LogSoftmax", PatternKind::kReduction,
                   {{"axis", AttrType::kInt}}, infer_softmax_like, per_input_element<6>));
  t.push_back(make(OpKind::Hardmax, "Hardmax", PatternKind::kReduction, {{"axis", AttrType::kInt}},
                   infer_softmax_like, per_input_element<1>));
}

}  // namespace ingot::ops::detail
