// Ops that generate tensors from compile-time values: ConstantOfShape (shape attribute), Size
// (element count of its input) and Range (constant scalar inputs start, limit, delta).
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_constant_of_shape(Node& n) {
  if (!n.attrs.has("shape"))
    fail_user("{}: input 'input' (the output shape) is missing", n.describe());
  TensorType out{DType(n.attrs.get_int("dtype", int64_t(DType::kF32))), {}};
  for (int64_t d : n.attrs.get_ints("shape")) {
    if (d < 0) fail_user("{}: shape has a negative dim {}", n.describe(), d);
    out.shape.push_back(Dim::fixed(d));
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
  cos.const_inputs = {{0, "input", "shape"}};
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
