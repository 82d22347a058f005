// Converter for Einsum (opset 12+): the equation attribute and the variadic operands as is.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

void convert_einsum(NodeConverter& c) {
  auto eq = c.attr_string("equation");
  if (!eq) c.fail("required attribute 'equation' is missing");
  if (c.num_inputs() < 1) c.fail("expects at least one input");
  std::vector<graph::Value*> inputs;
  for (int i = 0; i < c.num_inputs(); ++i) inputs.push_back(c.input(i, "Inputs"));
  graph::Attrs attrs;
  attrs.set("equation", *eq);
  c.emit(OpKind::Einsum, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"Einsum", 12, kMaxOnnxOpset, convert_einsum},
};

}  // namespace

std::span<const ConverterEntry> einsum_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
