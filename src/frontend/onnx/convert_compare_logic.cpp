// Converters for the comparison and logic ops (Equal, Less, LessOrEqual, Greater, GreaterOrEqual,
// Not, And, Or, Xor), Where, IsNaN and IsInf. Opset 7+ forms all broadcast like numpy, so every
// opset maps to the same graph form.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

template <OpKind K>
void convert_binary(NodeConverter& c) {
  c.emit(K, {c.input(0, "A"), c.input(1, "B")});
}

void convert_not(NodeConverter& c) {
  c.emit(OpKind::Not, {c.input(0, "X")});
}

void convert_where(NodeConverter& c) {
  c.emit(OpKind::Where, {c.input(0, "condition"), c.input(1, "X"), c.input(2, "Y")});
}

void convert_isnan(NodeConverter& c) {
  c.emit(OpKind::IsNaN, {c.input(0, "X")});
}

void convert_isinf(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("detect_negative", c.attr_int("detect_negative").value_or(1));
  attrs.set("detect_positive", c.attr_int("detect_positive").value_or(1));
  c.emit(OpKind::IsInf, {c.input(0, "X")}, attrs);
}

const ConverterEntry kTable[] = {
    {"Equal", 7, kMax, convert_binary<OpKind::Equal>},
    {"Less", 7, kMax, convert_binary<OpKind::Less>},
    {"LessOrEqual", 12, kMax, convert_binary<OpKind::LessOrEqual>},
    {"Greater", 7, kMax, convert_binary<OpKind::Greater>},
    {"GreaterOrEqual", 12, kMax, convert_binary<OpKind::GreaterOrEqual>},
    {"And", 7, kMax, convert_binary<OpKind::And>},
    {"Or", 7, kMax, convert_binary<OpKind::Or>},
    {"Xor", 7, kMax, convert_binary<OpKind::Xor>},
    {"Not", 1, kMax, convert_not},  // unchanged since opset 1
    {"Where", 9, kMax, convert_where},
    {"IsNaN", 9, kMax, convert_isnan},
    {"IsInf", 10, kMax, convert_isinf},
};

}  // namespace

std::span<const ConverterEntry> compare_logic_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
