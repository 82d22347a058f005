// Converters for Swish (opset 24) and SwiGLU (opset 28): one-to-one onto the graph ops, `alpha`
// copied when given (inference fills the default 1).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

graph::Attrs alpha_attr(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto alpha = c.attr_float("alpha")) attrs.set("alpha", *alpha);
  return attrs;
}

void convert_swish(NodeConverter& c) {
  graph::Attrs attrs = alpha_attr(c);
  c.emit(OpKind::Swish, {c.input(0, "X")}, attrs);
}

void convert_swiglu(NodeConverter& c) {
  graph::Attrs attrs = alpha_attr(c);
  c.emit(OpKind::SwiGLU, {c.input(0, "A"), c.input(1, "B")}, attrs);
}

const ConverterEntry kTable[] = {
    {"Swish", 24, kMaxOnnxOpset, convert_swish},
    {"SwiGLU", 28, kMaxOnnxOpset, convert_swiglu},
};

}  // namespace

std::span<const ConverterEntry> swish_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
