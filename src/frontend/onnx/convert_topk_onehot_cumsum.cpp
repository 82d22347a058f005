// Converters for TopK (attribute k before opset 10, input K after; largest/sorted from 11),
// OneHot (depth as an attribute when constant) and CumSum / CumProd (axis as an attribute when
// constant, else a run-time input).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

void convert_topk(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(-1));
  std::vector<graph::Value*> inputs{c.input(0, "X")};
  if (c.opset() < 10) {
    auto k = c.attr_int("k");
    if (!k) c.fail("required attribute 'k' is missing");
    attrs.set("k", *k);
  } else {
    c.input(1, "K");
    static_scalar_input(c, 1, "K", "k", false, attrs, inputs, /*runtime=*/true);
  }
  if (c.opset() >= 11) {
    attrs.set("largest", c.attr_int("largest").value_or(1));
    attrs.set("sorted", c.attr_int("sorted").value_or(1));
  }
  c.emit(OpKind::TopK, inputs, attrs, 2);
}

void convert_one_hot(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("axis", c.attr_int("axis").value_or(-1));
  std::vector<graph::Value*> inputs{c.input(0, "indices")};
  c.input(1, "depth");
  static_scalar_input(c, 1, "depth", "depth", true, attrs, inputs, /*runtime=*/true);
  inputs.resize(2, nullptr);
  inputs.push_back(c.input(2, "values"));
  c.emit(OpKind::OneHot, inputs, attrs);
}

template <OpKind K>
void convert_cumulative(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("exclusive", c.attr_int("exclusive").value_or(0));
  attrs.set("reverse", c.attr_int("reverse").value_or(0));
  std::vector<graph::Value*> inputs{c.input(0, "x")};
  graph::Value* axis = c.input(1, "axis");
  if (axis->is_constant()) {
    if (axis->constant->num_elements() != 1)
      c.fail("input 'axis' must hold one value, got {}", axis->constant->num_elements());
    attrs.set("axis", axis->constant->get_i64(0));
  } else {
    inputs.push_back(axis);  // read at run time
  }
  c.emit(K, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"TopK", 1, kMax, convert_topk},
    {"OneHot", 9, kMax, convert_one_hot},
    {"CumSum", 11, kMax, convert_cumulative<OpKind::CumSum>},
    {"CumProd", 26, kMax, convert_cumulative<OpKind::CumProd>},
};

}  // namespace

std::span<const ConverterEntry> topk_onehot_cumsum_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
