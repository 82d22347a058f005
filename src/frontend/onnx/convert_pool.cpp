// Converters for MaxPool (the Indices output with storage_order when used), AveragePool, LpPool
// (window attributes, ceil_mode, count_include_pad and p made explicit), GlobalAveragePool,
// GlobalMaxPool and MaxUnpool (output_shape as an attribute when constant).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/pool_attrs.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

graph::Attrs pool_attrs(NodeConverter& c) {
  if (!c.has_attr("kernel_shape")) c.fail("required attribute 'kernel_shape' is missing");
  graph::Attrs attrs = window_attrs(c);
  attrs.set("ceil_mode", c.attr_int("ceil_mode").value_or(0));
  return attrs;
}

void convert_max_pool(NodeConverter& c) {
  graph::Attrs attrs = pool_attrs(c);
  int64_t order = c.attr_int("storage_order").value_or(0);  // only affects the Indices output
  bool indices = c.num_outputs() > 1 && c.output_used(1);
  if (indices) attrs.set("storage_order", order);
  c.emit(OpKind::MaxPool, {c.input(0, "X")}, attrs, indices ? 2 : 1);
}

void convert_average_pool(NodeConverter& c) {
  graph::Attrs attrs = pool_attrs(c);
  attrs.set("count_include_pad", c.attr_int("count_include_pad").value_or(0));
  c.emit(OpKind::AveragePool, {c.input(0, "X")}, attrs);
}

void convert_lp_pool(NodeConverter& c) {
  graph::Attrs attrs = pool_attrs(c);
  attrs.set("p", c.attr_int("p").value_or(2));
  c.emit(OpKind::LpPool, {c.input(0, "X")}, attrs);
}

template <OpKind K>
void convert_global_pool(NodeConverter& c) {
  c.emit(K, {c.input(0, "X")});
}

void convert_max_unpool(NodeConverter& c) {
  if (!c.has_attr("kernel_shape")) c.fail("required attribute 'kernel_shape' is missing");
  graph::Attrs attrs;
  for (const char* name : {"kernel_shape", "strides", "pads"}) c.copy_attr(name, attrs);
  std::vector<graph::Value*> inputs{c.input(0, "X"), c.input(1, "I")};
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr t = c.value_input(2, "output_shape", &deferred))
    attrs.set("output_shape", tensor_to_i64s(*t));
  if (deferred) inputs.push_back(deferred);
  c.emit(OpKind::MaxUnpool, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"MaxPool", 7, kMaxOnnxOpset, convert_max_pool},
    {"AveragePool", 7, kMaxOnnxOpset, convert_average_pool},
    {"LpPool", 2, kMaxOnnxOpset, convert_lp_pool},
    {"GlobalAveragePool", 7, kMaxOnnxOpset, convert_global_pool<OpKind::GlobalAveragePool>},
    {"GlobalMaxPool", 7, kMaxOnnxOpset, convert_global_pool<OpKind::GlobalMaxPool>},
    {"MaxUnpool", 9, kMaxOnnxOpset, convert_max_unpool},
};

}  // namespace

std::span<const ConverterEntry> pool_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
