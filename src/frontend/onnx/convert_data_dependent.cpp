// Converters for the ops whose output size their input data decides: NonZero and Compress
// (ops/data_dependent.cpp).
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

const ConverterEntry kTable[] = {
    {"NonZero", 9, kMax, convert_non_zero},
    {"Compress", 9, kMax, convert_compress},
};

}  // namespace

std::span<const ConverterEntry> data_dependent_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
