// OneHot: indices -> a tensor one rank higher whose new axis (`axis`, size `depth`) holds
// values[1] at the index and values[0] elsewhere. depth decides the output shape, so it must be
// a compile-time constant; it is kept as a float attribute because ONNX allows any numeric type.
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_one_hot(Node& n) {
  const TensorType& idx = input_type(n, 0, "indices");
  const TensorType& values = input_type(n, 2, "values");
  if (idx.dtype == DType::kBool || idx.dtype == DType::kF16)
    fail_user("{}: input 'indices' {} must be an integer or float32 tensor", n.describe(),
              idx.str());
  if (!values.is_static() || values.num_elements() != 2)
    fail_user("{}: input 'values' {} must hold 2 values (off, on)", n.describe(), values.str());
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", -1), idx.rank() + 1, "axis");
  n.attrs.set("axis", axis);
  TensorType out{values.dtype, idx.shape};
  if (is_runtime_value(n.inputs[1])) {  // the caller's depth: a value symbol
    const TensorType& dt = n.inputs[1]->type;
    if (!dt.is_static() || dt.num_elements() != 1 || dt.dtype == DType::kBool)
      fail_user("{}: input 'depth' must be a number, got {}", n.describe(), dt.str());
    out.shape.insert(out.shape.begin() + axis, value_dim(n, 0, int(axis)));
    return {out};
  }
  if (!n.attrs.has("depth")) fail_user("{}: input 'depth' is missing", n.describe());
  double depth = std::trunc(n.attrs.get_float("depth", 0));
  if (depth < 1) fail_user("{}: 'depth' must be at least 1, got {}", n.describe(), depth);
  n.attrs.set("depth", depth);
  out.shape.insert(out.shape.begin() + axis, Dim::fixed(int64_t(depth)));
  return {out};
}

}  // namespace

void add_one_hot_ops(std::vector<OpInfo>& t) {
  OpInfo oh =
      make_data_movement_op(OpKind::OneHot, "OneHot",
                            {{"axis", AttrType::kInt}, {"depth", AttrType::kFloat}}, infer_one_hot);
  oh.min_inputs = oh.max_inputs = 3;  // indices, depth (nullptr once resolved), values
  oh.const_inputs = {{1, "depth", "depth", false, /*runtime=*/true}};
  t.push_back(oh);
}

}  // namespace ingot::ops::detail
