// Converters for Split (sizes from the `split` attribute before opset 13, a constant input after;
// num_outputs in 18) and Pad (attributes before opset 11, constant inputs after, axes in 18).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

void emit_split(NodeConverter& c, std::optional<std::vector<int64_t>> split) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(0));
  if (split) {
    if (int64_t(split->size()) != c.num_outputs())
      c.fail("'split' has {} sizes but the node has {} outputs", split->size(), c.num_outputs());
    attrs.set("split", *split);
  }
  c.emit(OpKind::Split, {c.input(0, "input")}, attrs, c.num_outputs());
}

void convert_split_2(NodeConverter& c) {
  emit_split(c, c.attr_ints("split"));
}

void convert_split_13(NodeConverter& c) {
  std::optional<std::vector<int64_t>> split;
  if (graph::TensorPtr t = c.constant_input(1, "split")) split = tensor_to_i64s(*t);
  if (auto n = c.attr_int("num_outputs")) {  // opset 18+
    if (split) c.fail("attribute 'num_outputs' and input 'split' are both given");
    if (*n != c.num_outputs())
      c.fail("attribute 'num_outputs' is {} but the node has {} outputs", *n, c.num_outputs());
  }
  emit_split(c, split);
}

std::string pad_mode(NodeConverter& c) {
  std::string mode = c.attr_string("mode").value_or("constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    c.fail("attribute 'mode' value '{}' is not supported (expected constant, reflect or edge)",
           mode);
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

void convert_pad_11(NodeConverter& c) {
  graph::Value* x = c.input(0, "data");
  c.input(1, "pads");
  std::vector<int64_t> pads = tensor_to_i64s(*c.constant_input(1, "pads"));
  double value = 0.0;
  if (graph::TensorPtr v = c.constant_input(2, "constant_value")) {
    if (v->num_elements() != 1) c.fail("input 'constant_value' must be a scalar");
    value = v->get_f64(0);
  }
  if (graph::TensorPtr axes_t = c.constant_input(3, "axes")) {  // opset 18+
    std::vector<int64_t> axes = tensor_to_i64s(*axes_t);
    if (pads.size() != 2 * axes.size())
      c.fail("input 'pads' has {} values; 2 per axis in 'axes' ({}) are needed", pads.size(),
             axes.size());
    if (!NodeConverter::known_dtype(x))
      c.fail("input 'axes' is only supported when the rank of 'data' is known at import");
    const auto rank = int64_t(x->type.rank());
    std::vector<int64_t> full(size_t(2 * rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (a < 0 || a >= rank)
        c.fail("input 'axes' value {} is out of range for rank {}", axes[i], rank);
      full[size_t(a)] = pads[i];
      full[size_t(a + rank)] = pads[i + axes.size()];
    }
    pads = full;
  }
  graph::Attrs attrs;
  attrs.set("pads", pads);
  attrs.set("mode", pad_mode(c));
  attrs.set("value", value);
  c.emit(OpKind::Pad, {x}, attrs);
}

const ConverterEntry kTable[] = {
    {"Split", 7, 12, convert_split_2},
    {"Split", 13, kMax, convert_split_13},
    {"Pad", 7, 10, convert_pad_2},
    {"Pad", 11, kMax, convert_pad_11},
};

}  // namespace

std::span<const ConverterEntry> split_pad_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
