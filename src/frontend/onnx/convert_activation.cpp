// Converters for the activation ops: LeakyRelu, PRelu, Elu, Selu, Celu, HardSigmoid, HardSwish,
// Softplus, Softsign, Mish, ThresholdedRelu, Shrink. Float attributes are copied as given;
// inference fills the ONNX defaults.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

template <OpKind K>
void convert_activation(NodeConverter& c) {
  graph::Attrs attrs;
  for (const char* name : {"alpha", "beta", "gamma", "bias", "lambd"})
    if (auto v = c.attr_float(name)) attrs.set(name, *v);
  c.emit(K, {c.input(0, K == OpKind::Shrink ? "input" : "X")}, attrs);
}

void convert_prelu(NodeConverter& c) {
  c.emit(OpKind::PRelu, {c.input(0, "X"), c.input(1, "slope")});
}

const ConverterEntry kTable[] = {
    {"LeakyRelu", 7, kMax, convert_activation<OpKind::LeakyRelu>},
    {"PRelu", 7, kMax, convert_prelu},
    {"Elu", 7, kMax, convert_activation<OpKind::Elu>},
    {"Selu", 7, kMax, convert_activation<OpKind::Selu>},
    {"Celu", 12, kMax, convert_activation<OpKind::Celu>},
    {"HardSigmoid", 7, kMax, convert_activation<OpKind::HardSigmoid>},
    {"HardSwish", 14, kMax, convert_activation<OpKind::HardSwish>},
    {"Softplus", 7, kMax, convert_activation<OpKind::Softplus>},
    {"Softsign", 7, kMax, convert_activation<OpKind::Softsign>},
    {"Mish", 18, kMax, convert_activation<OpKind::Mish>},
    {"ThresholdedRelu", 10, kMax, convert_activation<OpKind::ThresholdedRelu>},
    {"Shrink", 9, kMax, convert_activation<OpKind::Shrink>},
};

}  // namespace

std::span<const ConverterEntry> activation_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
