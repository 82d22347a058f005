// Converters for ReduceMean and ReduceSum: `axes` as an attribute (ReduceSum < 13, ReduceMean < 18)
// or a constant input (later opsets) always becomes the `axes` attribute.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

template <OpKind K>
void convert_reduce_attr_axes(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axes", c.attr_ints("axes").value_or(std::vector<int64_t>{}));
  attrs.set("keepdims", c.attr_int("keepdims").value_or(1));
  attrs.set("noop_with_empty_axes", int64_t(0));
  c.emit(K, {c.input(0, "data")}, attrs);
}

template <OpKind K>
void convert_reduce_input_axes(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<int64_t> axes;
  if (graph::TensorPtr t = c.constant_input(1, "axes")) axes = tensor_to_i64s(*t);
  attrs.set("axes", axes);
  attrs.set("keepdims", c.attr_int("keepdims").value_or(1));
  attrs.set("noop_with_empty_axes", c.attr_int("noop_with_empty_axes").value_or(0));
  c.emit(K, {c.input(0, "data")}, attrs);
}

const ConverterEntry kTable[] = {
    {"ReduceMean", 7, 17, convert_reduce_attr_axes<OpKind::ReduceMean>},
    {"ReduceMean", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceMean>},
    {"ReduceSum", 7, 12, convert_reduce_attr_axes<OpKind::ReduceSum>},
    {"ReduceSum", 13, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceSum>},
};

}  // namespace

std::span<const ConverterEntry> reduce_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
