// The op table (assembled from the op family files) and the generic parts of OpInfo:
// arity and attribute-schema validation.
#include "ops/op.h"

#include <fmt/format.h>

#include <string_view>

#include "ops/op_families.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops {

const char* pattern_name(PatternKind p) {
  switch (p) {
    case PatternKind::kElementwise:
      return "elementwise";
    case PatternKind::kBroadcast:
      return "broadcast";
    case PatternKind::kInjective:
      return "injective";
    case PatternKind::kReduction:
      return "reduction";
    case PatternKind::kOutEWiseFusable:
      return "out-elementwise-fusable";
    case PatternKind::kOpaque:
      return "opaque";
  }
  return "<bad pattern>";
}

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kString:
      return "string";
    case AttrType::kInts:
      return "ints";
    case AttrType::kFloats:
      return "floats";
    case AttrType::kStrings:
      return "strings";
  }
  return "<bad attr type>";
}

namespace {

// The AttrValue variant's alternatives are in AttrType order.
AttrType type_of(const graph::AttrValue& v) {
  return AttrType(v.index());
}

std::vector<OpInfo> build_table() {
  std::vector<OpInfo> entries;
  detail::add_elementwise_ops(entries);
  detail::add_compare_logic_ops(entries);
  detail::add_elementwise_extra_ops(entries);
  detail::add_activation_ops(entries);
  detail::add_conv_ops(entries);
  detail::add_layout_ops(entries);
  detail::add_winograd_ops(entries);
  detail::add_conv_transpose_ops(entries);
  detail::add_recurrent_ops(entries);
  detail::add_matmul_ops(entries);
  detail::add_normalization_ops(entries);
  detail::add_pooling_ops(entries);
  detail::add_pooling_nchwc_ops(entries);
  detail::add_reduction_ops(entries);
  detail::add_reduction_extra_ops(entries);
  detail::add_shape_ops(entries);
  detail::add_data_movement_ops(entries);
  detail::add_generator_ops(entries);
  detail::add_slice_tile_ops(entries);
  detail::add_rearrange_ops(entries);
  detail::add_attention_ops(entries);
  detail::add_resize_ops(entries);
  detail::add_scatter_gather_ops(entries);
  detail::add_topk_ops(entries);
  detail::add_one_hot_ops(entries);
  detail::add_data_dependent_ops(entries);
  detail::add_cumsum_ops(entries);
  detail::add_quantize_ops(entries);
  detail::add_qlinear_ops(entries);
  detail::add_weight_quant_ops(entries);
  detail::add_control_flow_ops(entries);
  detail::add_einsum_ops(entries);
  detail::add_det_ops(entries);
  detail::add_grid_sample_ops(entries);
  detail::add_col2im_ops(entries);
  detail::add_roi_align_ops(entries);
  detail::add_deform_conv_ops(entries);
  detail::add_swish_ops(entries);
  detail::add_causal_conv_ops(entries);
  detail::add_linear_attention_ops(entries);
  detail::add_tensor_scatter_ops(entries);
  detail::add_signal_ops(entries);
  std::vector<OpInfo> table;
#define INGOT_X(N) table.push_back(OpInfo{OpKind::N, #N, PatternKind::kOpaque, {}});
  INGOT_OP_LIST(INGOT_X)
#undef INGOT_X
  std::vector<bool> seen(table.size(), false);
  for (OpInfo& e : entries) {
    size_t i = size_t(e.kind);
    INGOT_ICHECK(i < table.size() && !seen[i], "op {} defined twice", e.name);
    seen[i] = true;
    table[i] = std::move(e);
  }
  for (size_t i = 0; i < table.size(); ++i)
    INGOT_ICHECK(seen[i] && table[i].infer_fn && table[i].flops_fn, "op {} has no complete OpInfo",
                 table[i].name);
  return table;
}

}  // namespace

const OpInfo& op_info(OpKind op) {
  static const std::vector<OpInfo> table = build_table();
  INGOT_ICHECK(size_t(op) < table.size(), "bad OpKind {}", int(op));
  return table[size_t(op)];
}

void OpInfo::validate(const graph::Node& n) const {
  int nin = int(n.inputs.size());
  if (nin < min_inputs || (max_inputs >= 0 && nin > max_inputs)) {
    std::string want = max_inputs < 0             ? fmt::format("at least {}", min_inputs)
                       : min_inputs == max_inputs ? fmt::format("{}", min_inputs)
                                                  : fmt::format("{} to {}", min_inputs, max_inputs);
    fail_user("{}: expects {} inputs, got {}", n.describe(), want, nin);
  }
  int nout = int(n.outputs.size());
  if (num_outputs >= 0 ? nout != num_outputs : nout < 1)
    fail_user("{}: expects {} outputs, got {}", n.describe(),
              num_outputs >= 0 ? fmt::format("{}", num_outputs) : std::string("at least 1"), nout);
  for (const auto& [key, value] : n.attrs.all()) {
    const AttrSpec* spec = nullptr;
    for (const AttrSpec& s : attrs)
      if (key == s.name) spec = &s;
    if (!spec) {
      std::string valid;
      for (const AttrSpec& s : attrs) valid += (valid.empty() ? "" : ", ") + std::string(s.name);
      fail_user("{}: unknown attribute '{}' (valid: {})", n.describe(), key,
                valid.empty() ? "none" : valid);
    }
    if (type_of(value) != spec->type)
      fail_user("{}: attribute '{}' must be {}, got {}", n.describe(), key,
                attr_type_name(spec->type), attr_type_name(type_of(value)));
  }
  for (const AttrSpec& s : attrs)
    if (s.required && !n.attrs.has(s.name))
      fail_user("{}: missing required attribute '{}'", n.describe(), s.name);
}

std::string graph_input_hint(const graph::Value* v) {
  if (v == nullptr || v->producer != nullptr || v->is_constant()) return "";
  return fmt::format("; it is the graph input '{}' (specialise it with --specialize-inputs)",
                     v->name);
}

void OpInfo::resolve_const_inputs(graph::Node& n) const {
  bool moved = false;
  for (const ConstInput& ci : const_inputs) {
    if (ci.slot >= int(n.inputs.size()) || !n.inputs[size_t(ci.slot)]) continue;
    const graph::Value* v = n.inputs[size_t(ci.slot)];
    if (!v->is_constant() && ci.symbolic && !v->symbolic_value.empty()) continue;
    if (ci.runtime && is_runtime_value(v)) continue;
    if (!v->is_constant())
      fail_user(
          "{}: input '{}' must be a compile-time constant (it is computed at run time, and a "
          "run-time value would make the output shape data-dependent)",
          n.describe(), ci.what);
    const graph::Tensor& t = *v->constant;
    AttrType type = AttrType::kInts;
    for (const AttrSpec& s : attrs)
      if (std::string_view(s.name) == ci.attr) type = s.type;
    if (type == AttrType::kInts) {
      std::vector<int64_t> vals;
      for (int64_t i = 0; i < t.num_elements(); ++i) vals.push_back(t.get_i64(i));
      n.attrs.set(ci.attr, vals);
    } else if (type == AttrType::kFloats) {
      std::vector<double> vals;
      for (int64_t i = 0; i < t.num_elements(); ++i) vals.push_back(t.get_f64(i));
      n.attrs.set(ci.attr, vals);
    } else {
      if (t.num_elements() != 1)
        fail_user("{}: input '{}' must hold one value, got {}", n.describe(), ci.what,
                  t.num_elements());
      if (type == AttrType::kInt)
        n.attrs.set(ci.attr, t.get_i64(0));
      else
        n.attrs.set(ci.attr, t.get_f64(0));
    }
    n.inputs[size_t(ci.slot)] = nullptr;
    moved = true;
  }
  while (moved && int(n.inputs.size()) > min_inputs && !n.inputs.back()) n.inputs.pop_back();
}

std::vector<graph::TensorType> OpInfo::infer(graph::Node& n) const {
  n.assumed_equal.clear();
  resolve_const_inputs(n);
  validate(n);
  std::vector<graph::TensorType> out = infer_fn(n);
  INGOT_ICHECK(out.size() == n.outputs.size(), "{}: inference gave {} types for {} outputs",
               n.describe(), out.size(), n.outputs.size());
  return out;
}

double OpInfo::flops(const graph::Node& n) const {
  return flops_fn(n);
}

bool is_epilogue_activation(OpKind op) {
  switch (op) {
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::Swish:
    case OpKind::HardSwish:
    case OpKind::HardSigmoid:
    case OpKind::LeakyRelu:
    case OpKind::Elu:
    case OpKind::Selu:
    case OpKind::Celu:
    case OpKind::Softplus:
    case OpKind::Softsign:
    case OpKind::Mish:
      return true;
    default:
      return false;
  }
}

namespace detail {

double no_flops(const graph::Node&) {
  return 0;
}

OpInfo make_data_movement_op(OpKind k, const char* name, std::vector<AttrSpec> attrs,
                             std::vector<graph::TensorType> (*infer)(graph::Node&)) {
  OpInfo i{k, name, PatternKind::kInjective, std::move(attrs)};
  i.infer_fn = infer;
  i.flops_fn = no_flops;
  return i;
}

}  // namespace detail

}  // namespace ingot::ops
