// The Conv and ConvTranspose converters: attributes copied as given (auto_pad kept as a string for
// type inference to resolve), `group` made explicit, float inputs only.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/pool_attrs.h"

namespace ingot::frontend::detail {
namespace {

void require_float(NodeConverter& c, const graph::Value* v, const char* what) {
  auto dtype = NodeConverter::known_dtype(v);
  if (dtype && !graph::is_float_dtype(*dtype))
    c.fail("input '{}' has dtype {}; only float32, float16, bfloat16 and float64 are supported",
           what, graph::dtype_name(*dtype));
}

void convert_conv(NodeConverter& c) {
  graph::Value* x = c.input(0, "X");
  graph::Value* w = c.input(1, "W");
  graph::Value* b = c.optional_input(2);
  require_float(c, x, "X");
  require_float(c, w, "W");
  graph::Attrs attrs = window_attrs(c);
  attrs.set("group", c.attr_int("group").value_or(1));
  c.emit(ops::OpKind::Conv, {x, w, b}, attrs);
}

// ConvTranspose: like Conv plus output_padding and output_shape; type inference resolves
// auto_pad (kept even when "NOTSET" is explicit, since output_shape reads it).
void convert_conv_transpose(NodeConverter& c) {
  graph::Value* x = c.input(0, "X");
  graph::Value* w = c.input(1, "W");
  graph::Value* b = c.optional_input(2);
  require_float(c, x, "X");
  require_float(c, w, "W");
  graph::Attrs attrs = window_attrs(c);
  attrs.set("group", c.attr_int("group").value_or(1));
  c.copy_attr("output_padding", attrs);
  c.copy_attr("output_shape", attrs);
  c.emit(ops::OpKind::ConvTranspose, {x, w, b}, attrs);
}

const ConverterEntry kTable[] = {
    {"Conv", 7, kMaxOnnxOpset, convert_conv},
    {"ConvTranspose", 7, kMaxOnnxOpset, convert_conv_transpose},
};

}  // namespace

std::span<const ConverterEntry> conv_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
