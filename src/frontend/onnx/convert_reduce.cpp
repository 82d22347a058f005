// Converters for the Reduce* ops: `axes` as an attribute (ReduceSum < 13, the others < 18) or a
// constant input (later opsets) always becomes the `axes` attribute; ArgMax and ArgMin.
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
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr t = c.value_input(1, "axes", &deferred)) axes = tensor_to_i64s(*t);
  attrs.set("axes", axes);
  attrs.set("keepdims", c.attr_int("keepdims").value_or(1));
  attrs.set("noop_with_empty_axes", c.attr_int("noop_with_empty_axes").value_or(0));
  std::vector<graph::Value*> inputs{c.input(0, "data")};
  if (deferred) inputs.push_back(deferred);
  c.emit(K, inputs, attrs);
}

// ArgMax/ArgMin: `select_last_index` exists from opset 12 (absent means 0).
template <OpKind K>
void convert_arg(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(0));
  attrs.set("keepdims", c.attr_int("keepdims").value_or(1));
  attrs.set("select_last_index", c.attr_int("select_last_index").value_or(0));
  c.emit(K, {c.input(0, "data")}, attrs);
}

const ConverterEntry kTable[] = {
    {"ArgMax", 7, kMaxOnnxOpset, convert_arg<OpKind::ArgMax>},
    {"ArgMin", 7, kMaxOnnxOpset, convert_arg<OpKind::ArgMin>},
    {"ReduceMean", 7, 17, convert_reduce_attr_axes<OpKind::ReduceMean>},
    {"ReduceMean", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceMean>},
    {"ReduceSum", 7, 12, convert_reduce_attr_axes<OpKind::ReduceSum>},
    {"ReduceSum", 13, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceSum>},
    {"ReduceMax", 7, 17, convert_reduce_attr_axes<OpKind::ReduceMax>},
    {"ReduceMax", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceMax>},
    {"ReduceMin", 7, 17, convert_reduce_attr_axes<OpKind::ReduceMin>},
    {"ReduceMin", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceMin>},
    {"ReduceProd", 7, 17, convert_reduce_attr_axes<OpKind::ReduceProd>},
    {"ReduceProd", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceProd>},
    {"ReduceL1", 7, 17, convert_reduce_attr_axes<OpKind::ReduceL1>},
    {"ReduceL1", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceL1>},
    {"ReduceL2", 7, 17, convert_reduce_attr_axes<OpKind::ReduceL2>},
    {"ReduceL2", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceL2>},
    {"ReduceSumSquare", 7, 17, convert_reduce_attr_axes<OpKind::ReduceSumSquare>},
    {"ReduceSumSquare", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceSumSquare>},
    {"ReduceLogSum", 7, 17, convert_reduce_attr_axes<OpKind::ReduceLogSum>},
    {"ReduceLogSum", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceLogSum>},
    {"ReduceLogSumExp", 7, 17, convert_reduce_attr_axes<OpKind::ReduceLogSumExp>},
    {"ReduceLogSumExp", 18, kMaxOnnxOpset, convert_reduce_input_axes<OpKind::ReduceLogSumExp>},
};

}  // namespace

std::span<const ConverterEntry> reduce_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
