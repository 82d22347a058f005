// The Constant converter: its value (tensor, float(s) or int(s) attribute) becomes a constant
// Value; no graph node is emitted.
#include <cstring>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor_proto.h"

namespace ingot::frontend::detail {
namespace {

graph::TensorPtr f32_tensor(const std::vector<double>& values, std::vector<int64_t> shape) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  for (size_t i = 0; i < values.size(); ++i) {
    float f = float(values[i]);
    std::memcpy(bytes.data() + i * sizeof(float), &f, sizeof(float));
  }
  return std::make_shared<graph::Tensor>(graph::DType::kF32, std::move(shape), std::move(bytes));
}

void convert_constant(NodeConverter& c) {
  for (const char* unsupported : {"sparse_value", "value_string", "value_strings"})
    if (c.has_attr(unsupported)) c.fail("attribute '{}' is not supported", unsupported);
  graph::TensorPtr data;
  if (const onnx::TensorProto* t = c.attr_tensor("value")) {
    data = tensor_from_proto(*t, fmt::format("node '{}' (Constant): attribute 'value'", c.name()),
                             c.model_dir());
  } else if (auto f = c.attr_float("value_float")) {
    data = f32_tensor({*f}, {});
  } else if (auto fs = c.attr_floats("value_floats")) {
    data = f32_tensor(*fs, {int64_t(fs->size())});
  } else if (auto i = c.attr_int("value_int")) {
    data = make_i64_tensor({*i}, {});
  } else if (auto is = c.attr_ints("value_ints")) {
    data = make_i64_tensor(*is, {int64_t(is->size())});
  } else {
    c.fail("has no value attribute");
  }
  c.check_all_attrs_consumed();  // a second value attribute is an error too
  c.make_output_constant(0, data);
}

const ConverterEntry kTable[] = {
    {"Constant", 7, kMaxOnnxOpset, convert_constant},
};

}  // namespace

std::span<const ConverterEntry> constant_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
