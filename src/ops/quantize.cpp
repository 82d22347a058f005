// Quantization ops: QuantizeLinear and DequantizeLinear (per-tensor, per-axis and blocked scales
// and zero points) and DynamicQuantizeLinear. The integer contractions (MatMulInteger,
// ConvInteger, QLinearMatMul, QLinearConv) are rewritten by the importer into these and
// MatMul / Conv, so they have no graph form of their own.
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

bool is_float(DType d) {
  return is_float_dtype(d);
}
bool is_quantized(DType d) {
  return d == DType::kU8 || d == DType::kI8 || d == DType::kU16 || d == DType::kI16;
}

// Checks the scale (input 1) and zero point (input 2, optional) of a (de)quantization of `x` and
// normalises `axis` (kept only for per-axis and blocked scales) and `block_size`.
void check_scale_and_zero_point(Node& n, const TensorType& x) {
  const TensorType& scale = input_type(n, 1, "scale");
  if (!is_float(scale.dtype))
    fail_user("{}: input 'scale' has dtype {}; expected a float type", n.describe(),
              dtype_name(scale.dtype));
  int64_t block = n.attrs.get_int("block_size", 0);
  if (block < 0) fail_user("{}: attribute 'block_size' is {}; must be >= 0", n.describe(), block);
  bool per_tensor =
      block == 0 && (scale.rank() == 0 || (scale.rank() == 1 && scale.shape[0] == Dim::fixed(1)));
  int64_t axis = n.attrs.get_int("axis", 1);
  n.attrs.erase("axis");
  if (!per_tensor) {
    axis = normalize_axis(n, axis, x.rank(), "axis");
    n.attrs.set("axis", axis);
    if (block == 0) {
      if (scale.rank() != 1)
        fail_user("{}: input 'scale' {} must be a scalar or 1-D (per-axis) without block_size",
                  n.describe(), scale.str());
      merge_dims(n, x.shape[axis], scale.shape[0], "input dim 'axis' and the scale's length");
    } else {
      if (scale.rank() != x.rank())
        fail_user("{}: blocked input 'scale' {} must have the rank of the input {}", n.describe(),
                  scale.str(), x.str());
      for (int d = 0; d < x.rank(); ++d) {
        if (!x.shape[d].is_static() || !scale.shape[d].is_static()) continue;
        int64_t want = d == axis ? (x.shape[d].value + block - 1) / block : x.shape[d].value;
        if (scale.shape[d].value != want)
          fail_user(
              "{}: blocked input 'scale' {} does not match input {} with block_size {} on "
              "axis {}",
              n.describe(), scale.str(), x.str(), block, axis);
      }
    }
  }
  n.attrs.set("block_size", block);
  // (A per-tensor scale and zero point may differ in rank: ONNX Runtime's quantizer writes a
  // [1] scale with a scalar zero point.)
  if (has_input(n, 2) && n.inputs[2]->type.shape != scale.shape &&
      !(per_tensor && n.inputs[2]->type.is_static() && n.inputs[2]->type.num_elements() == 1))
    fail_user("{}: input 'zero_point' {} must have the shape of 'scale' {}", n.describe(),
              n.inputs[2]->type.str(), scale.str());
}

std::vector<TensorType> infer_quantize(Node& n) {
  const TensorType& x = input_type(n, 0, "x");
  if (!is_float(x.dtype) && x.dtype != DType::kI32)
    fail_user("{}: input 'x' has dtype {}; expected a float type or int32", n.describe(),
              dtype_name(x.dtype));
  check_scale_and_zero_point(n, x);
  auto to = DType(n.attrs.get_int("to", int64_t(DType::kU8)));
  if (has_input(n, 2)) {
    DType zp = n.inputs[2]->type.dtype;
    if (n.attrs.has("to") && zp != to)
      fail_user("{}: output dtype {} differs from the zero point's dtype {}", n.describe(),
                dtype_name(to), dtype_name(zp));
    to = zp;
  }
  if (!is_quantized(to))
    fail_user("{}: quantized dtype {} is not supported (uint8, int8, uint16, int16)", n.describe(),
              dtype_name(to));
  n.attrs.set("to", int64_t(to));
  return {TensorType{to, x.shape}};
}

std::vector<TensorType> infer_dequantize(Node& n) {
  const TensorType& x = input_type(n, 0, "x");
  if (!is_quantized(x.dtype) && x.dtype != DType::kI32)
    fail_user("{}: input 'x' has dtype {}; expected uint8, int8, uint16, int16 or int32",
              n.describe(), dtype_name(x.dtype));
  check_scale_and_zero_point(n, x);
  if (has_input(n, 2)) require_same_dtype(n, x, n.inputs[2]->type, "x", "zero_point");
  auto to = DType(n.attrs.get_int("to", int64_t(n.inputs[1]->type.dtype)));
  if (!is_float(to))
    fail_user("{}: output dtype {} is not a float type", n.describe(), dtype_name(to));
  n.attrs.set("to", int64_t(to));
  return {TensorType{to, x.shape}};
}

std::vector<TensorType> infer_dynamic_quantize(Node& n) {
  const TensorType& x = input_type(n, 0, "x");
  if (!is_float(x.dtype))
    fail_user("{}: input 'x' has dtype {}; expected a float type", n.describe(),
              dtype_name(x.dtype));
  return {TensorType{DType::kU8, x.shape}, TensorType{x.dtype, {}}, TensorType{DType::kU8, {}}};
}

template <int Flops>
double per_element(const Node& n) {
  return Flops * approx_elements(n.inputs[0]->type);
}

}  // namespace

void add_quantize_ops(std::vector<OpInfo>& t) {
  // divide, round, add, clamp.
  OpInfo q{OpKind::QuantizeLinear,
           "QuantizeLinear",
           PatternKind::kBroadcast,
           {{"axis", AttrType::kInt}, {"block_size", AttrType::kInt}, {"to", AttrType::kInt}}};
  q.min_inputs = 2;
  q.max_inputs = 3;
  q.infer_fn = infer_quantize;
  q.flops_fn = per_element<4>;
  t.push_back(q);

  // subtract, multiply.
  OpInfo dq{OpKind::DequantizeLinear,
            "DequantizeLinear",
            PatternKind::kBroadcast,
            {{"axis", AttrType::kInt}, {"block_size", AttrType::kInt}, {"to", AttrType::kInt}}};
  dq.min_inputs = 2;
  dq.max_inputs = 3;
  dq.infer_fn = infer_dequantize;
  dq.flops_fn = per_element<2>;
  t.push_back(dq);

  // min/max pass, then divide, round, add, clamp.
  OpInfo dyn{OpKind::DynamicQuantizeLinear, "DynamicQuantizeLinear", PatternKind::kOpaque, {}};
  dyn.num_outputs = 3;
  dyn.infer_fn = infer_dynamic_quantize;
  dyn.flops_fn = per_element<6>;
  t.push_back(dyn);
}

}  // namespace ingot::ops::detail
