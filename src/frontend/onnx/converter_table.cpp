// The converter table: every op family's rows, searched by ONNX op type and opset.
#include <algorithm>
#include <array>

#include "frontend/onnx/converter.h"

namespace ingot::frontend::detail {

const ConverterEntry* find_converter(std::string_view op_type, int opset,
                                     std::optional<std::pair<int, int>>* known_range) {
  static const std::span<const ConverterEntry> families[] = {
      compare_logic_converters(),
      elementwise_extra_converters(),
      activation_converters(),
      elementwise_converters(),
      constant_converters(),
      conv_converters(),
      matmul_converters(),
      norm_converters(),
      pool_converters(),
      reduce_converters(),
      shape_converters(),
      split_pad_converters(),
      slice_tile_converters(),
      attention_converters(),
      resize_converters(),
      scatter_gather_converters(),
      topk_onehot_cumsum_converters(),
      quantize_converters(),
      recurrent_converters(),
      einsum_converters(),
      sampling_converters(),
      swish_converters(),
      sequence_state_converters(),
      signal_converters(),
      control_flow_converters(),
      data_dependent_converters(),
  };
  const ConverterEntry* found = nullptr;
  if (known_range) known_range->reset();
  for (const auto& family : families) {
    for (const ConverterEntry& e : family) {
      if (e.op_type != op_type) continue;
      if (known_range) {
        if (!*known_range) *known_range = std::pair{e.min_opset, e.max_opset};
        (*known_range)->first = std::min((*known_range)->first, e.min_opset);
        (*known_range)->second = std::max((*known_range)->second, e.max_opset);
      }
      if (opset >= e.min_opset && opset <= e.max_opset) found = &e;
    }
  }
  return found;
}

}  // namespace ingot::frontend::detail
