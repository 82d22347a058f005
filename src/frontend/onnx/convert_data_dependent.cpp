// Converters for the ops whose output size their input data decides: NonZero, Compress
// Unique and NonMaxSuppression (ops/data_dependent.cpp).
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

void convert_nms(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("center_point_box", c.attr_int("center_point_box").value_or(0));
  std::vector<graph::Value*> inputs{c.input(0, "boxes"), c.input(1, "scores")};
  for (int i = 2; i < 5; ++i) inputs.push_back(c.optional_input(i));
  while (inputs.back() == nullptr) inputs.pop_back();
  c.emit(OpKind::NonMaxSuppression, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"NonZero", 9, kMax, convert_non_zero},
    {"Compress", 9, kMax, convert_compress},
    {"Unique", 11, kMax, convert_unique},
    {"NonMaxSuppression", 10, kMax, convert_nms},
};

}  // namespace

std::span<const ConverterEntry> data_dependent_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
