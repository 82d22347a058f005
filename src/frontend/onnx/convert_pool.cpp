// Converters for MaxPool, AveragePool, LpPool (window attributes, ceil_mode, count_include_pad
// and p made explicit) and GlobalAveragePool.
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
  c.ignore_attr("storage_order");  // only affects the Indices output
  c.require_unused_output(1, "Indices");
  c.emit(OpKind::MaxPool, {c.input(0, "X")}, pool_attrs(c));
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

void convert_global_average_pool(NodeConverter& c) {
  c.emit(OpKind::GlobalAveragePool, {c.input(0, "X")});
}

const ConverterEntry kTable[] = {
    {"MaxPool", 7, kMaxOnnxOpset, convert_max_pool},
    {"AveragePool", 7, kMaxOnnxOpset, convert_average_pool},
    {"LpPool", 2, kMaxOnnxOpset, convert_lp_pool},
    {"GlobalAveragePool", 7, kMaxOnnxOpset, convert_global_average_pool},
};

}  // namespace

std::span<const ConverterEntry> pool_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
