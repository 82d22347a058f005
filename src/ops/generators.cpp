// Ops that generate tensors from compile-time values: ConstantOfShape (shape attribute), Size
// (element count of its input) and Range (constant scalar inputs start, limit, delta).
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_constant_of_shape(Node& n) {
  if (!n.inputs.empty() && is_runtime_value(n.inputs[0])) {  // the caller's shape: value dims
    const TensorType& s = n.inputs[0]->type;
    if (s.rank() != 1 || !s.is_static() || s.dtype != DType::kI64)
      fail_user("{}: input 'input' must be a 1-D int64 tensor, got {}", n.describe(), s.str());
    n.attrs.set("value", n.attrs.get_float("value", 0.0));
    TensorType out{DType(n.attrs.get_int("dtype", int64_t(DType::kF32))), {}};
    for (int64_t i = 0; i < s.shape[0].value; ++i) out.shape.push_back(value_dim(n, 0, int(i)));
    return {out};
  }
  auto shape = shape_operand(n, 0, "shape", "input");
  if (!shape) fail_user("{}: input 'input' (the output shape) is missing", n.describe());
  TensorType out{DType(n.attrs.get_int("dtype", int64_t(DType::kF32))), {}};
  for (const graph::SymExpr& d : *shape) {
    if (d.as_constant() && *d.as_constant() < 0)
      fail_user("{}: shape has a negative dim {}", n.describe(), d.str());
    out.shape.push_back(Dim::of(d));
  }
  n.attrs.set("value", n.attrs.get_float("value", 0.0));
  return {out};
}

std::vector<TensorType> infer_size(Node& n) {
  input_type(n, 0, "data");
  return {TensorType{DType::kI64, {}}};
}

double scalar_input(const Node& n, int i, const char* what) {
  const TensorType& t = input_type(n, i, what);
  if (!n.inputs[i]->is_constant())
    fail_user("{}: input '{}' must be a compile-time constant (it decides the output shape){}",
              n.describe(), what, graph_input_hint(n.inputs[i]));
  if (t.num_elements() != 1)
    fail_user("{}: input '{}' must be a scalar, got {}", n.describe(), what, t.str());
  return n.inputs[i]->constant->get_f64(0);
}

std::vector<TensorType> infer_range(Node& n) {
  const TensorType& t = input_type(n, 0, "start");
  for (int i = 1; i < 3; ++i)
    require_same_dtype(n, t, input_type(n, i, i == 1 ? "limit" : "delta"), "start",
                       i == 1 ? "limit" : "delta");
  if (t.dtype == DType::kBool || t.dtype == DType::kU8)
    fail_user("{}: unsupported dtype {}", n.describe(), dtype_name(t.dtype));
  // An integer Range whose bounds come from the input shapes has a symbolic length.
  auto symbolic_scalar = [&](int i) -> std::optional<graph::SymExpr> {
    const graph::Value* v = n.inputs[size_t(i)];
    if (v->symbolic_value.size() == 1) return v->symbolic_value[0];
    if (v->is_constant() && v->constant->num_elements() == 1)
      return graph::SymExpr(v->constant->get_i64(0));
    return std::nullopt;
  };
  const bool is_integer = t.dtype == DType::kI64 || t.dtype == DType::kI32 ||
                          t.dtype == DType::kI16 || t.dtype == DType::kI8;
  if (is_integer && (!n.inputs[0]->is_constant() || !n.inputs[1]->is_constant())) {
    auto s = symbolic_scalar(0), l = symbolic_scalar(1);
    std::optional<int64_t> d = n.inputs[2]->is_constant()
                                   ? std::optional(n.inputs[2]->constant->get_i64(0))
                                   : std::nullopt;
    if (s && l && d && *d != 0) {
      graph::SymExpr span = *d > 0 ? *l - *s : *s - *l;
      graph::SymExpr count =
          graph::SymExpr::max(graph::SymExpr::ceildiv(span, *d > 0 ? *d : -*d), graph::SymExpr(0));
      return {TensorType{t.dtype, {Dim::of(count)}}};
    }
  }
  bool runtime = false, computed = false;  // the caller's bounds: the length is a value symbol
  for (int i = 0; i < 3; ++i) {
    runtime = runtime || is_runtime_value(n.inputs[size_t(i)]);
    const graph::Value* v = n.inputs[size_t(i)];
    computed = computed || (!v->is_constant() && v->symbolic_value.empty() && !is_runtime_value(v));
  }
  if (runtime && !computed) {
    for (int i = 0; i < 3; ++i)
      if (n.inputs[size_t(i)]->type.num_elements() != 1)
        fail_user("{}: input {} must be a scalar, got {}", n.describe(), i,
                  n.inputs[size_t(i)]->type.str());
    return {TensorType{t.dtype, {value_dim(n, 0, 0)}}};
  }
  double start = scalar_input(n, 0, "start"), limit = scalar_input(n, 1, "limit"),
         delta = scalar_input(n, 2, "delta");
  if (delta == 0) fail_user("{}: input 'delta' is 0", n.describe());
  double count = std::ceil((limit - start) / delta);
  return {TensorType{t.dtype, {Dim::fixed(count > 0 ? int64_t(count) : 0)}}};
}

}  // namespace

void add_generator_ops(std::vector<OpInfo>& t) {
  OpInfo cos{OpKind::ConstantOfShape,
             "ConstantOfShape",
             PatternKind::kInjective,
             {{"shape", AttrType::kInts}, {"value", AttrType::kFloat}, {"dtype", AttrType::kInt}}};
  cos.min_inputs = 0;
  cos.max_inputs = 1;  // the shape, until type inference moves it into the attribute
  cos.const_inputs = {{0, "input", "shape", /*symbolic=*/true, /*runtime=*/true}};
  cos.infer_fn = infer_constant_of_shape;
  cos.flops_fn = no_flops;
  t.push_back(cos);

  OpInfo size{OpKind::Size, "Size", PatternKind::kOpaque, {}};
  size.infer_fn = infer_size;
  size.flops_fn = no_flops;
  t.push_back(size);

  OpInfo range{OpKind::Range, "Range", PatternKind::kOpaque, {}};
  range.min_inputs = range.max_inputs = 3;
  range.infer_fn = infer_range;
  range.flops_fn = no_flops;
  t.push_back(range);
}

}  // namespace ingot::ops::detail
