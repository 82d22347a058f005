// Converters for BatchNormalization (inference form, output 0 only), LayerNormalization (Y and
// the optional Mean / InvStdDev), InstanceNormalization, RMSNormalization, GroupNormalization
// (opset 21: per-channel scale and bias), MeanVarianceNormalization, LpNormalization, LRN and
// Softmax (opset < 13's coerce-to-2-D semantics rewritten as Flatten -> Softmax -> Reshape).
#include <algorithm>
#include <limits>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

void convert_batch_norm(NodeConverter& c) {
  c.ignore_attr("momentum");                   // training only
  if (c.attr_int("spatial").value_or(1) != 1)  // opset 7-8
    c.fail("attribute 'spatial' value 0 is not supported");
  if (auto training = c.attr_int("training_mode"); training && *training != 0)  // opset 14+
    c.fail("attribute 'training_mode' value {} is not supported (inference only)", *training);
  for (int i = 1; i < c.num_outputs(); ++i) c.require_unused_output(i, "training statistics");
  graph::Attrs attrs;
  attrs.set("epsilon", c.attr_float("epsilon").value_or(1e-5));
  c.emit(OpKind::BatchNormalization,
         {c.input(0, "X"), c.input(1, "scale"), c.input(2, "B"), c.input(3, "input_mean"),
          c.input(4, "input_var")},
         attrs);
}

void convert_layer_norm(NodeConverter& c) {
  c.ignore_attr("stash_type");  // ingot computes the statistics in float32 or wider
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(-1));
  attrs.set("epsilon", c.attr_float("epsilon").value_or(1e-5));
  // Mean and InvStdDev are emitted when the ONNX node lists them.
  c.emit(OpKind::LayerNormalization, {c.input(0, "X"), c.input(1, "Scale"), c.optional_input(2)},
         attrs, std::min(c.num_outputs(), 3));
}

void convert_instance_norm(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("epsilon", c.attr_float("epsilon").value_or(1e-5));
  c.emit(OpKind::InstanceNormalization, {c.input(0, "input"), c.input(1, "scale"), c.input(2, "B")},
         attrs);
}

void convert_rms_norm(NodeConverter& c) {
  c.ignore_attr("stash_type");  // ingot computes the statistics in float32 or wider
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(-1));
  attrs.set("epsilon", c.attr_float("epsilon").value_or(1e-5));
  c.emit(OpKind::RMSNormalization, {c.input(0, "X"), c.input(1, "scale")}, attrs);
}

void convert_group_norm(NodeConverter& c) {
  c.ignore_attr("stash_type");  // ingot computes the statistics in float32 or wider
  auto groups = c.attr_int("num_groups");
  if (!groups) c.fail("required attribute 'num_groups' is missing");
  graph::Attrs attrs;
  attrs.set("num_groups", *groups);
  attrs.set("epsilon", c.attr_float("epsilon").value_or(1e-5));
  c.emit(OpKind::GroupNormalization, {c.input(0, "X"), c.input(1, "scale"), c.input(2, "bias")},
         attrs);
}

void convert_mvn(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axes", c.attr_ints("axes").value_or(std::vector<int64_t>{0, 2, 3}));
  c.emit(OpKind::MeanVarianceNormalization, {c.input(0, "X")}, attrs);
}

void convert_lp_norm(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(-1));
  attrs.set("p", c.attr_int("p").value_or(2));
  c.emit(OpKind::LpNormalization, {c.input(0, "input")}, attrs);
}

void convert_lrn(NodeConverter& c) {
  auto size = c.attr_int("size");
  if (!size) c.fail("required attribute 'size' is missing");
  graph::Attrs attrs;
  attrs.set("size", *size);
  attrs.set("alpha", c.attr_float("alpha").value_or(1e-4));
  attrs.set("beta", c.attr_float("beta").value_or(0.75));
  attrs.set("bias", c.attr_float("bias").value_or(1.0));
  c.emit(OpKind::LRN, {c.input(0, "X")}, attrs);
}

template <OpKind K = OpKind::Softmax>
void convert_softmax_13(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(-1));
  c.emit(K, {c.input(0, "input")}, attrs);
}

// Softmax-1/11: the input is coerced to 2-D at `axis` (default 1), normalised along dim 1 and
// reshaped back; the shape comes from a Shape node that type inference turns into a constant.
// LogSoftmax and Hardmax (opset < 13) are rewritten the same way.
template <OpKind K = OpKind::Softmax>
void convert_softmax_1(NodeConverter& c) {
  graph::Value* x = c.input(0, "input");
  graph::Attrs flat;
  flat.set("axis", c.attr_int("axis").value_or(1));
  graph::Value* x2d = c.emit_helper(OpKind::Flatten, "flatten", {x}, flat);
  graph::Attrs one;
  one.set("axis", int64_t(1));
  graph::Value* y2d = c.emit_helper(K, "softmax", {x2d}, one);
  graph::Attrs whole;
  whole.set("start", int64_t(0));
  whole.set("end", std::numeric_limits<int64_t>::max());
  graph::Value* shape = c.emit_helper(OpKind::Shape, "shape", {x}, whole);
  graph::Attrs reshape;
  reshape.set("allowzero", int64_t(0));
  c.emit(OpKind::Reshape, {y2d, shape}, reshape);
}

const ConverterEntry kTable[] = {
    {"BatchNormalization", 7, kMaxOnnxOpset, convert_batch_norm},
    {"LayerNormalization", 17, kMaxOnnxOpset, convert_layer_norm},
    {"InstanceNormalization", 7, kMaxOnnxOpset, convert_instance_norm},
    {"RMSNormalization", 23, kMaxOnnxOpset, convert_rms_norm},
    {"GroupNormalization", 21, kMaxOnnxOpset, convert_group_norm},
    {"MeanVarianceNormalization", 9, kMaxOnnxOpset, convert_mvn},
    {"LpNormalization", 7, kMaxOnnxOpset, convert_lp_norm},
    {"LRN", 7, kMaxOnnxOpset, convert_lrn},
    {"Softmax", 7, 12, convert_softmax_1<>},
    {"Softmax", 13, kMaxOnnxOpset, convert_softmax_13<>},
    {"LogSoftmax", 7, 12, convert_softmax_1<OpKind::LogSoftmax>},
    {"LogSoftmax", 13, kMaxOnnxOpset, convert_softmax_13<OpKind::LogSoftmax>},
    {"Hardmax", 7, 12, convert_softmax_1<OpKind::Hardmax>},
    {"Hardmax", 13, kMaxOnnxOpset, convert_softmax_13<OpKind::Hardmax>},
};

}  // namespace

std::span<const ConverterEntry> norm_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
