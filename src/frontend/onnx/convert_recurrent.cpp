// Converters for RNN, GRU and LSTM: inputs passed through (omitted optional inputs as empty
// slots), attributes copied for type inference to check and make canonical, float inputs only.
#include <algorithm>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

template <ops::OpKind K>
void convert_recurrent(NodeConverter& c) {
  constexpr bool lstm = K == ops::OpKind::LSTM;
  graph::Value* x = c.input(0, "X");
  auto dtype = NodeConverter::known_dtype(x);
  if (dtype && !graph::is_float_dtype(*dtype))
    c.fail("input 'X' has dtype {}; only float32, float16, bfloat16 and float64 are supported",
           graph::dtype_name(*dtype));
  std::vector<graph::Value*> inputs = {x, c.input(1, "W"), c.input(2, "R")};
  int max_inputs = lstm ? 8 : 6;
  for (int i = 3; i < std::min(c.num_inputs(), max_inputs); ++i)
    inputs.push_back(c.optional_input(i));
  while (inputs.size() > 3 && inputs.back() == nullptr) inputs.pop_back();
  graph::Attrs attrs;
  for (const char* name : {"activation_alpha", "activation_beta", "activations", "clip",
                           "direction", "hidden_size", "layout"})
    c.copy_attr(name, attrs);
  if (K == ops::OpKind::GRU) c.copy_attr("linear_before_reset", attrs);
  if (lstm) c.copy_attr("input_forget", attrs);
  int outs = std::clamp(c.num_outputs(), 1, lstm ? 3 : 2);
  c.emit(K, inputs, attrs, outs);
}

const ConverterEntry kTable[] = {
    {"RNN", 7, kMaxOnnxOpset, convert_recurrent<ops::OpKind::RNN>},
    {"GRU", 7, kMaxOnnxOpset, convert_recurrent<ops::OpKind::GRU>},
    {"LSTM", 7, kMaxOnnxOpset, convert_recurrent<ops::OpKind::LSTM>},
};

}  // namespace

std::span<const ConverterEntry> recurrent_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
