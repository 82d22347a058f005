// Converters for elementwise ops: unary math, binary arithmetic, Clip, Cast, BitCast, Gelu,
// Identity and Dropout (which becomes Identity at inference, its mask all ones).
#include <array>
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor_proto.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

template <OpKind K>
void convert_unary(NodeConverter& c) {
  c.emit(K, {c.input(0, "X")});
}

template <OpKind K>
void convert_binary(NodeConverter& c) {
  c.emit(K, {c.input(0, "A"), c.input(1, "B")});
}

// Clip-6 has `min`/`max` attributes; they become scalar constant inputs of X's dtype when known.
void convert_clip_6(NodeConverter& c) {
  graph::Value* x = c.input(0, "input");
  graph::DType dtype = NodeConverter::known_dtype(x).value_or(graph::DType::kF32);
  graph::Value* lo = nullptr;
  graph::Value* hi = nullptr;
  if (auto v = c.attr_float("min")) lo = c.make_constant("min", make_scalar(dtype, *v));
  if (auto v = c.attr_float("max")) hi = c.make_constant("max", make_scalar(dtype, *v));
  c.emit(OpKind::Clip, {x, lo, hi});
}

void convert_clip_11(NodeConverter& c) {
  c.emit(OpKind::Clip, {c.input(0, "input"), c.optional_input(1), c.optional_input(2)});
}

void convert_cast(NodeConverter& c) {
  auto to = c.attr_int("to");
  if (!to) c.fail("required attribute 'to' is missing");
  auto dtype = dtype_from_onnx(int32_t(*to));
  if (!dtype)
    c.fail("attribute 'to' value {} ({}) is not supported", *to, onnx_dtype_name(int32_t(*to)));
  c.ignore_attr("saturate");    // only affects float8 targets
  c.ignore_attr("round_mode");  // only affects float8/float4 targets
  graph::Attrs attrs;
  attrs.set("to", int64_t(*dtype));
  c.emit(OpKind::Cast, {c.input(0, "input")}, attrs);
}

void convert_gelu(NodeConverter& c) {
  std::string approx = c.attr_string("approximate").value_or("none");
  if (approx != "none" && approx != "tanh")
    c.fail("attribute 'approximate' value '{}' is not supported (expected 'none' or 'tanh')",
           approx);
  graph::Attrs attrs;
  attrs.set("approximate", approx);
  c.emit(OpKind::Gelu, {c.input(0, "X")}, attrs);
}

void convert_bitcast(NodeConverter& c) {
  auto to = c.attr_int("to");
  if (!to) c.fail("required attribute 'to' is missing");
  auto dtype = dtype_from_onnx(int32_t(*to));
  if (!dtype)
    c.fail("attribute 'to' value {} ({}) is not supported", *to, onnx_dtype_name(int32_t(*to)));
  graph::Attrs attrs;
  attrs.set("to", int64_t(*dtype));
  c.emit(OpKind::BitCast, {c.input(0, "input")}, attrs);
}

// Dropout at inference is the identity and its mask all ones (bool from opset 10, X's dtype
// before): ConstantOfShape of X's shape. Training mode is unsupported; the ratio is unused.
void convert_dropout(NodeConverter& c) {
  c.ignore_attr("ratio");  // opset < 12
  c.ignore_attr("seed");
  if (c.has_input(2)) {
    graph::TensorPtr training = c.constant_input(2, "training_mode");
    if (training->num_elements() != 1 || training->get_i64(0) != 0)
      c.fail("training mode (input 'training_mode' = true) is not supported");
  }
  graph::Value* x = c.input(0, "data");
  c.emit(OpKind::Identity, {x});
  if (!c.output_used(1)) return;
  graph::Attrs whole;
  whole.set("start", int64_t(0));
  whole.set("end", std::numeric_limits<int64_t>::max());
  graph::Value* shape = c.emit_helper(OpKind::Shape, "shape", {x}, whole);
  graph::Attrs ones;
  ones.set("value", 1.0);
  ones.set("dtype", int64_t(graph::DType::kBool));
  if (c.opset() >= 10) {
    c.emit_output(1, OpKind::ConstantOfShape, "mask", {shape}, ones);
    return;
  }
  graph::Value* mask = c.emit_helper(OpKind::ConstantOfShape, "ones", {shape}, ones);
  c.emit_output(1, OpKind::Cast, "mask", {mask, x});  // CastLike form: X's dtype
}

const ConverterEntry kTable[] = {
    {"Relu", 7, kMax, convert_unary<OpKind::Relu>},
    {"Sigmoid", 7, kMax, convert_unary<OpKind::Sigmoid>},
    {"Tanh", 7, kMax, convert_unary<OpKind::Tanh>},
    {"Erf", 9, kMax, convert_unary<OpKind::Erf>},
    {"Exp", 7, kMax, convert_unary<OpKind::Exp>},
    {"Log", 7, kMax, convert_unary<OpKind::Log>},
    {"Sqrt", 7, kMax, convert_unary<OpKind::Sqrt>},
    {"Reciprocal", 7, kMax, convert_unary<OpKind::Reciprocal>},
    {"Neg", 7, kMax, convert_unary<OpKind::Neg>},
    {"Abs", 7, kMax, convert_unary<OpKind::Abs>},
    {"Identity", 7, kMax, convert_unary<OpKind::Identity>},
    {"Add", 7, kMax, convert_binary<OpKind::Add>},
    {"Sub", 7, kMax, convert_binary<OpKind::Sub>},
    {"Mul", 7, kMax, convert_binary<OpKind::Mul>},
    {"Div", 7, kMax, convert_binary<OpKind::Div>},
    {"Pow", 7, kMax, convert_binary<OpKind::Pow>},
    {"Clip", 7, 10, convert_clip_6},
    {"Clip", 11, kMax, convert_clip_11},
    {"Cast", 7, kMax, convert_cast},
    {"Gelu", 20, kMax, convert_gelu},
    {"Dropout", 7, kMax, convert_dropout},
    {"BitCast", 26, kMax, convert_bitcast},
};

}  // namespace

std::span<const ConverterEntry> elementwise_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
