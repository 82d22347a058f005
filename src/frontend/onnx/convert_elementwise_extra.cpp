// Converters for the variadic elementwise ops (Max, Min, Sum, Mean), Mod, BitShift, Bitwise*, Sign,
// rounding, trigonometric and hyperbolic functions, and CastLike (which becomes Cast to the
// second input's dtype: `to` at import when that dtype is known, else input 1 until inference).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

template <OpKind K>
void convert_variadic(NodeConverter& c) {
  if (c.num_inputs() < 1) c.fail("expects at least one input");
  std::vector<graph::Value*> inputs;
  for (int i = 0; i < c.num_inputs(); ++i) inputs.push_back(c.input(i, "data"));
  c.emit(K, inputs);
}

template <OpKind K>
void convert_unary(NodeConverter& c) {
  c.emit(K, {c.input(0, "input")});
}

void convert_mod(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("fmod", c.attr_int("fmod").value_or(0));
  c.emit(OpKind::Mod, {c.input(0, "A"), c.input(1, "B")}, attrs);
}

void convert_bitshift(NodeConverter& c) {
  auto dir = c.attr_string("direction");
  if (!dir) c.fail("required attribute 'direction' is missing");
  graph::Attrs attrs;
  attrs.set("direction", *dir);
  c.emit(OpKind::BitShift, {c.input(0, "X"), c.input(1, "Y")}, attrs);
}

template <OpKind K>
void convert_binary(NodeConverter& c) {
  c.emit(K, {c.input(0, "A"), c.input(1, "B")});
}

void convert_cast_like(NodeConverter& c) {
  c.ignore_attr("saturate");    // only affects float8 targets
  c.ignore_attr("round_mode");  // only affects float8/float4 targets
  graph::Value* target = c.input(1, "target_type");
  auto dtype = NodeConverter::known_dtype(target);
  if (!dtype) {  // computed: Cast reads `to` from input 1 at type inference
    c.emit(OpKind::Cast, {c.input(0, "input"), target});
    return;
  }
  graph::Attrs attrs;
  attrs.set("to", int64_t(*dtype));
  c.emit(OpKind::Cast, {c.input(0, "input")}, attrs);
}

const ConverterEntry kTable[] = {
    {"Max", 7, kMax, convert_variadic<OpKind::Max>},
    {"Min", 7, kMax, convert_variadic<OpKind::Min>},
    {"Sum", 7, kMax, convert_variadic<OpKind::Sum>},
    {"Mean", 7, kMax, convert_variadic<OpKind::Mean>},
    {"Mod", 10, kMax, convert_mod},
    {"BitShift", 11, kMax, convert_bitshift},
    {"BitwiseAnd", 18, kMax, convert_binary<OpKind::BitwiseAnd>},
    {"BitwiseOr", 18, kMax, convert_binary<OpKind::BitwiseOr>},
    {"BitwiseXor", 18, kMax, convert_binary<OpKind::BitwiseXor>},
    {"BitwiseNot", 18, kMax, convert_unary<OpKind::BitwiseNot>},
    {"Sign", 9, kMax, convert_unary<OpKind::Sign>},
    {"Ceil", 7, kMax, convert_unary<OpKind::Ceil>},
    {"Floor", 7, kMax, convert_unary<OpKind::Floor>},
    {"Round", 11, kMax, convert_unary<OpKind::Round>},
    {"Sin", 7, kMax, convert_unary<OpKind::Sin>},
    {"Cos", 7, kMax, convert_unary<OpKind::Cos>},
    {"Tan", 7, kMax, convert_unary<OpKind::Tan>},
    {"Asin", 7, kMax, convert_unary<OpKind::Asin>},
    {"Acos", 7, kMax, convert_unary<OpKind::Acos>},
    {"Atan", 7, kMax, convert_unary<OpKind::Atan>},
    {"Sinh", 9, kMax, convert_unary<OpKind::Sinh>},
    {"Cosh", 9, kMax, convert_unary<OpKind::Cosh>},
    {"Asinh", 9, kMax, convert_unary<OpKind::Asinh>},
    {"Acosh", 9, kMax, convert_unary<OpKind::Acosh>},
    {"Atanh", 9, kMax, convert_unary<OpKind::Atanh>},
    {"CastLike", 15, kMax, convert_cast_like},
};

}  // namespace

std::span<const ConverterEntry> elementwise_extra_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
