// Converters for the quantization ops. QuantizeLinear / DequantizeLinear (output_dtype becomes
// `to`, a graph::DType) and DynamicQuantizeLinear map one to one. The integer contractions are
// rewritten into exact integer / float64 arithmetic on existing ops, following the ONNX reference:
//   MatMulInteger: MatMul(int32(A) - a_zp, int32(B) - b_zp) in int32;
//   ConvInteger:   int32(Conv(f64(x) - x_zp, f64(w) - w_zp)) (exact: integer sums below 2^53);
//   QLinearMatMul / QLinearConv: the integer result R times (a_scale * b_scale / y_scale)
//   (computed in the scales' type) in float64, plus y_zp, then QuantizeLinear(scale 1) rounds
//   ties to even and saturates. Per-row / per-channel 1-D zero points and scales are unsqueezed
//   to broadcast along their axis.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/pool_attrs.h"
#include "frontend/onnx/tensor_proto.h"

namespace ingot::frontend::detail {
namespace {

using graph::DType;
using graph::Value;
using ops::OpKind;

// output_dtype (an ONNX code, 0 = unset) -> `to` in `attrs`.
void set_output_dtype(NodeConverter& c, graph::Attrs& attrs) {
  int64_t code = c.attr_int("output_dtype").value_or(0);
  if (code == 0) return;
  auto dtype = dtype_from_onnx(int32_t(code));
  if (!dtype)
    c.fail("attribute 'output_dtype' value {} ({}) is not supported", code,
           onnx_dtype_name(int32_t(code)));
  attrs.set("to", int64_t(*dtype));
}

void convert_quantize(NodeConverter& c) {
  graph::Attrs attrs;
  c.copy_attr("axis", attrs);
  c.copy_attr("block_size", attrs);
  set_output_dtype(c, attrs);
  c.ignore_attr("saturate");  // float8 outputs only
  if (c.attr_int("precision").value_or(0) != 0)
    c.fail("attribute 'precision' is not supported (the division is done in the input's type)");
  c.emit(OpKind::QuantizeLinear, {c.input(0, "x"), c.input(1, "y_scale"), c.optional_input(2)},
         attrs);
}

void convert_dequantize(NodeConverter& c) {
  graph::Attrs attrs;
  c.copy_attr("axis", attrs);
  c.copy_attr("block_size", attrs);
  set_output_dtype(c, attrs);
  c.emit(OpKind::DequantizeLinear, {c.input(0, "x"), c.input(1, "x_scale"), c.optional_input(2)},
         attrs);
}

void convert_dynamic_quantize(NodeConverter& c) {
  c.emit(OpKind::DynamicQuantizeLinear, {c.input(0, "x")}, {}, 3);
}

Value* cast_to(NodeConverter& c, Value* v, DType d, const std::string& suffix) {
  graph::Attrs attrs;
  attrs.set("to", int64_t(d));
  return c.emit_helper(OpKind::Cast, suffix, {v}, attrs);
}

// The rank of a value known at import (graph inputs and constants), else -1.
int known_rank(const Value* v) {
  return v && v->producer == nullptr ? v->type.rank() : -1;
}

// A per-axis 1-D `v` (length > 1) unsqueezed with `trailing` unit dims so that it broadcasts
// along the axis that has `trailing` dims after it; scalars and computed values are unchanged.
Value* along_axis(NodeConverter& c, Value* v, int trailing, const std::string& suffix) {
  if (!v || trailing <= 0 || known_rank(v) != 1 || v->type.shape[0] == graph::Dim::fixed(1))
    return v;
  std::vector<int64_t> axes;
  for (int k = 1; k <= trailing; ++k) axes.push_back(k);
  graph::Attrs attrs;
  attrs.set("axes", axes);
  return c.emit_helper(OpKind::Unsqueeze, suffix, {v}, attrs);
}

// `x` in `dtype`, less the zero point `zp` (if any; already broadcastable).
Value* centred(NodeConverter& c, Value* x, Value* zp, DType dtype, const std::string& what) {
  Value* v = cast_to(c, x, dtype, what + "_cast");
  if (!zp) return v;
  return c.emit_helper(OpKind::Sub, what + "_centred", {v, cast_to(c, zp, dtype, what + "_zp")});
}

// Rank of the conv weight: from W, X, or kernel_shape; needed to broadcast per-channel values.
int conv_rank(NodeConverter& c, Value* x, Value* w) {
  if (known_rank(w) > 0) return known_rank(w);
  if (known_rank(x) > 0) return known_rank(x);
  if (auto k = c.attr_ints("kernel_shape")) return int(k->size()) + 2;
  c.fail("the rank of 'w' must be known at import (a constant or graph input, or kernel_shape)");
}

// Float64 Conv of the centred integer inputs (+ int32 bias), with the node's window attributes.
Value* integer_conv(NodeConverter& c, Value* x, Value* xzp, Value* w, Value* wzp, Value* bias) {
  int rank = conv_rank(c, x, w);
  graph::Attrs attrs = window_attrs(c);
  attrs.set("group", c.attr_int("group").value_or(1));
  Value* xf = centred(c, x, xzp, DType::kF64, "x");
  Value* wf = centred(c, w, along_axis(c, wzp, rank - 1, "w_zp_axis"), DType::kF64, "w");
  Value* bf = bias ? cast_to(c, bias, DType::kF64, "bias_cast") : nullptr;
  return c.emit_helper(OpKind::Conv, "conv", {xf, wf, bf}, attrs);
}

// The int32 MatMul operands: the centred inputs (a_zp per row, b_zp per column).
std::vector<Value*> integer_matmul_operands(NodeConverter& c, Value* a, Value* azp, Value* b,
                                            Value* bzp) {
  return {centred(c, a, along_axis(c, azp, 1, "a_zp_row"), DType::kI32, "a"),
          centred(c, b, bzp, DType::kI32, "b")};
}

// Emits y = saturate(round(r * (s1 * s2 / sy) + y_zp)) with r in float64.
void requantize(NodeConverter& c, Value* r, Value* s1, Value* s2, Value* sy, Value* yzp, Value* x) {
  Value* factor = c.emit_helper(OpKind::Div, "scale",
                                {c.emit_helper(OpKind::Mul, "scale_product", {s1, s2}), sy});
  Value* v = c.emit_helper(
      OpKind::Mul, "scaled",
      {cast_to(c, r, DType::kF64, "result_f64"), cast_to(c, factor, DType::kF64, "scale_f64")});
  if (yzp) v = c.emit_helper(OpKind::Add, "shifted", {v, cast_to(c, yzp, DType::kF64, "y_zp_f64")});
  auto to = NodeConverter::known_dtype(yzp ? yzp : x);
  if (!to)
    c.fail("the dtype of '{}' must be known at import (a constant or graph input)",
           yzp ? "y_zero_point" : "x");
  graph::Attrs attrs;
  attrs.set("to", int64_t(*to));
  Value* one = c.make_constant("one", make_scalar(DType::kF64, 1.0));
  c.emit(OpKind::QuantizeLinear, {v, one}, attrs);
}

void convert_matmul_integer(NodeConverter& c) {
  c.emit(OpKind::MatMul, integer_matmul_operands(c, c.input(0, "A"), c.optional_input(2),
                                                 c.input(1, "B"), c.optional_input(3)));
}

void convert_conv_integer(NodeConverter& c) {
  Value* r = integer_conv(c, c.input(0, "x"), c.optional_input(2), c.input(1, "w"),
                          c.optional_input(3), nullptr);
  graph::Attrs attrs;
  attrs.set("to", int64_t(DType::kI32));
  c.emit(OpKind::Cast, {r}, attrs);
}

void convert_qlinear_matmul(NodeConverter& c) {
  Value* a = c.input(0, "a");
  Value* r = c.emit_helper(
      OpKind::MatMul, "matmul",
      integer_matmul_operands(c, a, c.optional_input(2), c.input(3, "b"), c.optional_input(5)));
  requantize(c, r, along_axis(c, c.input(1, "a_scale"), 1, "a_scale_row"), c.input(4, "b_scale"),
             along_axis(c, c.input(6, "y_scale"), 1, "y_scale_row"), c.optional_input(7), a);
}

void convert_qlinear_conv(NodeConverter& c) {
  Value* x = c.input(0, "x");
  Value* w = c.input(3, "w");
  int rank = conv_rank(c, x, w);
  Value* r = integer_conv(c, x, c.optional_input(2), w, c.optional_input(5), c.optional_input(8));
  requantize(c, r, c.input(1, "x_scale"), along_axis(c, c.input(4, "w_scale"), rank - 2, "w_axis"),
             c.input(6, "y_scale"), c.optional_input(7), x);
}

const ConverterEntry kTable[] = {
    {"QuantizeLinear", 10, kMaxOnnxOpset, convert_quantize},
    {"DequantizeLinear", 10, kMaxOnnxOpset, convert_dequantize},
    {"DynamicQuantizeLinear", 11, kMaxOnnxOpset, convert_dynamic_quantize},
    {"MatMulInteger", 10, kMaxOnnxOpset, convert_matmul_integer},
    {"ConvInteger", 10, kMaxOnnxOpset, convert_conv_integer},
    {"QLinearMatMul", 10, kMaxOnnxOpset, convert_qlinear_matmul},
    {"QLinearConv", 10, kMaxOnnxOpset, convert_qlinear_conv},
};

}  // namespace

std::span<const ConverterEntry> quantize_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
