// Converters for shape and data-movement ops: Flatten, Reshape, Transpose, Concat, Shape, Gather,
// Squeeze and Unsqueeze (axes as an attribute before opset 13, an input after, resolved by
// type inference when other nodes compute it).
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

void convert_flatten(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(1));
  c.emit(OpKind::Flatten, {c.input(0, "input")}, attrs);
}

void convert_reshape(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("allowzero", c.attr_int("allowzero").value_or(0));  // opset 14+
  c.emit(OpKind::Reshape, {c.input(0, "data"), c.input(1, "shape")}, attrs);
}

void convert_transpose(NodeConverter& c) {
  graph::Attrs attrs;
  c.copy_attr("perm", attrs);
  c.emit(OpKind::Transpose, {c.input(0, "data")}, attrs);
}

void convert_concat(NodeConverter& c) {
  auto axis = c.attr_int("axis");
  if (!axis) c.fail("required attribute 'axis' is missing");
  std::vector<graph::Value*> inputs;
  for (int i = 0; i < c.num_inputs(); ++i) inputs.push_back(c.input(i, "inputs"));
  if (inputs.empty()) c.fail("has no inputs");
  graph::Attrs attrs;
  attrs.set("axis", *axis);
  c.emit(OpKind::Concat, inputs, attrs);
}

void convert_shape(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("start", c.attr_int("start").value_or(0));  // opset 15+
  attrs.set("end", c.attr_int("end").value_or(std::numeric_limits<int64_t>::max()));
  c.emit(OpKind::Shape, {c.input(0, "data")}, attrs);
}

void convert_gather(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(0));
  c.emit(OpKind::Gather, {c.input(0, "data"), c.input(1, "indices")}, attrs);
}

template <OpKind K>
void convert_axes_attr(NodeConverter& c) {
  graph::Attrs attrs;
  c.copy_attr("axes", attrs);
  if (K == OpKind::Unsqueeze && !attrs.has("axes")) c.fail("required attribute 'axes' is missing");
  c.emit(K, {c.input(0, "data")}, attrs);
}

template <OpKind K>
void convert_axes_input(NodeConverter& c) {
  graph::Attrs attrs;
  if (K == OpKind::Unsqueeze) c.input(1, "axes");  // required: reports it when missing
  graph::Value* deferred = nullptr;
  graph::TensorPtr axes = c.value_input(1, "axes", &deferred);
  if (axes) attrs.set("axes", tensor_to_i64s(*axes));
  std::vector<graph::Value*> inputs{c.input(0, "data")};
  if (deferred) inputs.push_back(deferred);
  c.emit(K, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"Flatten", 7, kMax, convert_flatten},
    {"Reshape", 7, kMax, convert_reshape},
    {"Transpose", 7, kMax, convert_transpose},
    {"Concat", 7, kMax, convert_concat},
    {"Shape", 7, kMax, convert_shape},
    {"Gather", 7, kMax, convert_gather},
    {"Squeeze", 7, 12, convert_axes_attr<OpKind::Squeeze>},
    {"Squeeze", 13, kMax, convert_axes_input<OpKind::Squeeze>},
    {"Unsqueeze", 7, 12, convert_axes_attr<OpKind::Unsqueeze>},
    {"Unsqueeze", 13, kMax, convert_axes_input<OpKind::Unsqueeze>},
};

}  // namespace

std::span<const ConverterEntry> shape_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
