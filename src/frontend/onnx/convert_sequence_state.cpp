// Converters for the ops that carry a sequence state between decode steps: CausalConvWithState
// (opset 27), LinearAttention (opset 27) and TensorScatter (opset 24). One-to-one onto the graph
// ops; omitted optional inputs stay nullptr. LinearAttention's `chunk_size` is a tuning hint
// that does not change results and is dropped.
#include <algorithm>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

// Inputs first..last-1 that the node lists (nullptr where omitted), appended to `inputs`.
void optional_inputs(NodeConverter& c, int first, int last, std::vector<graph::Value*>& inputs) {
  for (int i = first; i < std::min(c.num_inputs(), last); ++i)
    inputs.push_back(c.optional_input(i));
}

void require_two_outputs(NodeConverter& c) {
  if (c.num_outputs() != 2) c.fail("expects 2 outputs, got {}", c.num_outputs());
}

void convert_causal_conv(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto act = c.attr_string("activation")) attrs.set("activation", *act);
  std::vector<graph::Value*> inputs = {c.input(0, "input"), c.input(1, "weight")};
  optional_inputs(c, 2, 4, inputs);
  require_two_outputs(c);
  c.emit(OpKind::CausalConvWithState, inputs, attrs, 2);
}

void convert_linear_attention(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto rule = c.attr_string("update_rule")) attrs.set("update_rule", *rule);
  if (auto scale = c.attr_float("scale")) attrs.set("scale", *scale);
  for (const char* a : {"q_num_heads", "kv_num_heads"})
    if (auto v = c.attr_int(a)) attrs.set(a, *v);
  c.ignore_attr("chunk_size");
  std::vector<graph::Value*> inputs = {c.input(0, "query"), c.input(1, "key"), c.input(2, "value")};
  optional_inputs(c, 3, 6, inputs);
  require_two_outputs(c);
  c.emit(OpKind::LinearAttention, inputs, attrs, 2);
}

void convert_tensor_scatter(NodeConverter& c) {
  graph::Attrs attrs;
  if (auto axis = c.attr_int("axis")) attrs.set("axis", *axis);
  if (auto mode = c.attr_string("mode")) attrs.set("mode", *mode);
  std::vector<graph::Value*> inputs = {c.input(0, "past_cache"), c.input(1, "update")};
  optional_inputs(c, 2, 3, inputs);
  c.emit(OpKind::TensorScatter, inputs, attrs);
}

const ConverterEntry kTable[] = {
    {"CausalConvWithState", 27, kMaxOnnxOpset, convert_causal_conv},
    {"LinearAttention", 27, kMaxOnnxOpset, convert_linear_attention},
    {"TensorScatter", 24, kMaxOnnxOpset, convert_tensor_scatter},
};

}  // namespace

std::span<const ConverterEntry> sequence_state_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
