// Converters for Attention and RotaryEmbedding (opset 23+): one-to-one mappings onto the graph
// ops. Attention's optional inputs (attn_mask, past_key, past_value, nonpad_kv_seqlen) stay
// nullptr when omitted and its outputs are the ONNX node's (present_key / present_value /
// qk_matmul_output when listed).
#include <algorithm>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;

void convert_attention(NodeConverter& c) {
  graph::Attrs attrs;
  for (const char* a : {"scale", "is_causal", "q_num_heads", "kv_num_heads", "softcap",
                        "qk_matmul_output_mode", "left_window_size", "right_window_size"})
    c.copy_attr(a, attrs);
  c.ignore_attr("softmax_precision");  // the softmax runs in float32 or wider
  std::vector<graph::Value*> inputs = {c.input(0, "Q"), c.input(1, "K"), c.input(2, "V")};
  for (int i = 3; i < std::min(c.num_inputs(), 7); ++i) inputs.push_back(c.optional_input(i));
  if (c.num_outputs() > 4) c.fail("expects at most 4 outputs, got {}", c.num_outputs());
  c.emit(OpKind::Attention, inputs, attrs, c.num_outputs());
}

void convert_rotary(NodeConverter& c) {
  graph::Attrs attrs;
  for (const char* a : {"interleaved", "num_heads", "rotary_embedding_dim"}) c.copy_attr(a, attrs);
  c.emit(OpKind::RotaryEmbedding,
         {c.input(0, "X"), c.input(1, "cos_cache"), c.input(2, "sin_cache"), c.optional_input(3)},
         attrs);
}

const ConverterEntry kTable[] = {
    {"Attention", 23, kMaxOnnxOpset, convert_attention},
    {"RotaryEmbedding", 23, kMaxOnnxOpset, convert_rotary},
};

}  // namespace

std::span<const ConverterEntry> attention_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
