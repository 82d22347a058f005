// Converters for the audio / signal ops (opset 17+): HannWindow, HammingWindow, BlackmanWindow,
// DFT (axis attribute at 17, input at 20), STFT and MelWeightMatrix. Scalar inputs that decide the
// output shape become attributes when constant; when other nodes compute them they stay node
// inputs until type inference resolves them.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"
#include "frontend/onnx/tensor_proto.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

// ONNX `output_datatype` (default FLOAT) as a graph::DType value.
int64_t output_dtype(NodeConverter& c) {
  int64_t code = c.attr_int("output_datatype").value_or(onnx::TensorProto::FLOAT);
  std::optional<graph::DType> dt = dtype_from_onnx(int32_t(code));
  if (!dt || *dt == graph::DType::kBool)
    c.fail("output_datatype {} is not supported", onnx_dtype_name(int32_t(code)));
  return int64_t(*dt);
}

template <OpKind kKind>
void convert_window(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs;
  c.input(0, "size");
  static_scalar_input(c, 0, "size", "size", false, attrs, inputs, /*runtime=*/true);
  attrs.set("periodic", c.attr_int("periodic").value_or(1));
  attrs.set("dtype", output_dtype(c));
  c.emit(kKind, inputs, attrs);
}

void convert_dft(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs{c.input(0, "input")};
  static_scalar_input(c, 1, "dft_length", "dft_length", false, attrs, inputs);
  if (c.opset() < 20) {
    attrs.set("axis", c.attr_int("axis").value_or(1));
  } else {
    attrs.set("axis", int64_t(-2));
    static_scalar_input(c, 2, "axis", "axis", false, attrs, inputs, /*runtime=*/true);
  }
  attrs.set("inverse", c.attr_int("inverse").value_or(0));
  attrs.set("onesided", c.attr_int("onesided").value_or(0));
  c.emit(OpKind::DFT, inputs, attrs);
}

void convert_stft(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs{c.input(0, "signal")};
  c.input(1, "frame_step");
  static_scalar_input(c, 1, "frame_step", "frame_step", false, attrs, inputs, /*runtime=*/true);
  if (graph::Value* w = c.optional_input(2)) {
    inputs.resize(2, nullptr);
    inputs.push_back(w);
  }
  static_scalar_input(c, 3, "frame_length", "frame_length", false, attrs, inputs,
                      /*runtime=*/true);
  attrs.set("onesided", c.attr_int("onesided").value_or(1));
  c.emit(OpKind::STFT, inputs, attrs);
}

void convert_mel_weight_matrix(NodeConverter& c) {
  graph::Attrs attrs;
  std::vector<graph::Value*> inputs;
  c.input(0, "num_mel_bins");
  c.input(1, "dft_length");
  static_scalar_input(c, 0, "num_mel_bins", "num_mel_bins", false, attrs, inputs,
                      /*runtime=*/true);
  static_scalar_input(c, 1, "dft_length", "dft_length", false, attrs, inputs, /*runtime=*/true);
  inputs.resize(2, nullptr);
  inputs.push_back(c.input(2, "sample_rate"));
  inputs.push_back(c.input(3, "lower_edge_hertz"));
  inputs.push_back(c.input(4, "upper_edge_hertz"));
  attrs.set("dtype", output_dtype(c));
  c.emit(OpKind::MelWeightMatrix, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"HannWindow", 17, kMax, convert_window<OpKind::HannWindow>},
    {"HammingWindow", 17, kMax, convert_window<OpKind::HammingWindow>},
    {"BlackmanWindow", 17, kMax, convert_window<OpKind::BlackmanWindow>},
    {"DFT", 17, kMax, convert_dft},
    {"STFT", 17, kMax, convert_stft},
    {"MelWeightMatrix", 17, kMax, convert_mel_weight_matrix},
};

}  // namespace

std::span<const ConverterEntry> signal_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
