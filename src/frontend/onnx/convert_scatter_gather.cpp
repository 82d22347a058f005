// Converters for GatherND, ScatterND, ScatterElements and the deprecated Scatter (opsets 9 and
// 10, imported as ScatterElements without reduction).
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

void convert_gather_nd(NodeConverter& c) {
  graph::Attrs attrs;
  attrs.set("batch_dims", c.attr_int("batch_dims").value_or(0));
  c.emit(OpKind::GatherND, {c.input(0, "data"), c.input(1, "indices")}, attrs);
}

template <OpKind K>
void convert_scatter(NodeConverter& c) {
  graph::Attrs attrs;
  if (K == OpKind::ScatterElements) attrs.set("axis", c.attr_int("axis").value_or(0));
  attrs.set("reduction", c.attr_string("reduction").value_or("none"));
  c.emit(K, {c.input(0, "data"), c.input(1, "indices"), c.input(2, "updates")}, attrs);
}

const ConverterEntry kTable[] = {
    {"GatherND", 11, kMax, convert_gather_nd},
    {"ScatterND", 11, kMax, convert_scatter<OpKind::ScatterND>},
    {"ScatterElements", 11, kMax, convert_scatter<OpKind::ScatterElements>},
    {"Scatter", 9, 10, convert_scatter<OpKind::ScatterElements>},
};

}  // namespace

std::span<const ConverterEntry> scatter_gather_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
