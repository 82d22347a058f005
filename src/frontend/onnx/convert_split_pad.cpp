// Converters for Split (sizes from the `split` attribute before opset 13, an input after;
// num_outputs in 18), Pad (attributes before opset 11, inputs after, axes in 18) and
// CenterCropPad; inputs that other nodes compute stay node inputs until type inference resolves
// them.
#include <utility>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

void emit_split(NodeConverter& c, std::optional<std::vector<int64_t>> split,
                graph::Value* deferred = nullptr) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(0));
  if (split) {
    if (int64_t(split->size()) != c.num_outputs())
      c.fail("'split' has {} sizes but the node has {} outputs", split->size(), c.num_outputs());
    attrs.set("split", *split);
  }
  std::vector<graph::Value*> inputs{c.input(0, "input")};
  if (deferred) inputs.push_back(deferred);
  c.emit(OpKind::Split, inputs, attrs, c.num_outputs());
}

void convert_split_2(NodeConverter& c) {
  emit_split(c, c.attr_ints("split"));
}

void convert_split_13(NodeConverter& c) {
  std::optional<std::vector<int64_t>> split;
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr t = c.value_input(1, "split", &deferred)) split = tensor_to_i64s(*t);
  if (auto n = c.attr_int("num_outputs")) {  // opset 18+
    if (split || deferred) c.fail("attribute 'num_outputs' and input 'split' are both given");
    if (*n != c.num_outputs())
      c.fail("attribute 'num_outputs' is {} but the node has {} outputs", *n, c.num_outputs());
  }
  emit_split(c, split, deferred);
}

std::string pad_mode(NodeConverter& c) {
  std::string mode = c.attr_string("mode").value_or("constant");
  bool wrap_ok = c.opset() >= 19;  // "wrap" arrived with Pad-19
  if (mode != "constant" && mode != "reflect" && mode != "edge" && !(wrap_ok && mode == "wrap"))
    c.fail("attribute 'mode' value '{}' is not supported (expected {})", mode,
           wrap_ok ? "constant, reflect, edge or wrap" : "constant, reflect or edge");
  return mode;
}

void convert_pad_2(NodeConverter& c) {
  graph::Attrs attrs;
  auto pads = c.attr_ints("pads");
  if (!pads) c.fail("required attribute 'pads' is missing");
  attrs.set("pads", *pads);
  attrs.set("mode", pad_mode(c));
  attrs.set("value", c.attr_float("value").value_or(0.0));
  c.emit(OpKind::Pad, {c.input(0, "data")}, attrs);
}

// pads, constant_value and axes go to attributes; when other nodes compute them, or the caller
// gives them (read at run time: ops/value_symbols.h), they stay node inputs 1..3 until type
// inference resolves them (infer_pad folds constant `axes` into `pads`).
void convert_pad_11(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs{c.input(0, "data"), nullptr, nullptr, nullptr};
  c.input(1, "pads");
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr p = c.value_input(1, "pads", &deferred))
    attrs.set("pads", tensor_to_i64s(*p));
  inputs[1] = std::exchange(deferred, nullptr);
  if (graph::TensorPtr v = c.value_input(2, "constant_value", &deferred)) {
    if (v->num_elements() != 1) c.fail("input 'constant_value' must be a scalar");
    attrs.set("value", v->get_f64(0));
  }
  inputs[2] = std::exchange(deferred, nullptr);
  if (graph::TensorPtr axes = c.value_input(3, "axes", &deferred))  // opset 18+
    attrs.set("axes", tensor_to_i64s(*axes));
  inputs[3] = deferred;
  while (inputs.size() > 1 && !inputs.back()) inputs.pop_back();
  attrs.set("mode", pad_mode(c));
  c.emit(OpKind::Pad, inputs, attrs);
}

// CenterCropPad: `shape` goes to the attribute (a node input until inferred when computed, or
// read at run time when the caller gives it).
void convert_center_crop_pad(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs{c.input(0, "input_data")};
  c.input(1, "shape");
  graph::Value* deferred = nullptr;
  if (graph::TensorPtr s = c.value_input(1, "shape", &deferred))
    attrs.set("shape", tensor_to_i64s(*s));
  if (deferred) inputs.push_back(deferred);
  c.copy_attr("axes", attrs);
  c.emit(OpKind::CenterCropPad, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"Split", 7, 12, convert_split_2},
    {"Split", 13, kMax, convert_split_13},
    {"Pad", 7, 10, convert_pad_2},
    {"Pad", 11, kMax, convert_pad_11},
    {"CenterCropPad", 18, kMax, convert_center_crop_pad},
};

}  // namespace

std::span<const ConverterEntry> split_pad_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
