// Converters for the ops whose output size their input data decides: NonZero, Compress
// and Unique (ops/data_dependent.cpp).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

void convert_non_zero(NodeConverter& c) {
  c.emit(OpKind::NonZero, {c.input(0, "X")}, {});
}

void convert_compress(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto axis = c.attr_int("axis")) attrs.set("axis", *axis);
  c.emit(OpKind::Compress, {c.input(0, "input"), c.input(1, "condition")}, attrs);
}

void convert_unique(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto axis = c.attr_int("axis")) attrs.set("axis", *axis);
  attrs.set("sorted", c.attr_int("sorted").value_or(1));
  c.emit(OpKind::Unique, {c.input(0, "X")}, attrs, c.num_outputs());
}

const ConverterEntry kTable[] = {
    {"NonZero", 9, kMax, convert_non_zero},
    {"Compress", 9, kMax, convert_compress},
    {"Unique", 11, kMax, convert_unique},
};

}  // namespace

std::span<const ConverterEntry> data_dependent_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
