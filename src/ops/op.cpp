// The op table (assembled from the op family files) and the generic parts of OpInfo:
// arity and attribute-schema validation.
#include "ops/op.h"

#include <fmt/format.h>

#include "ops/op_families.h"
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
  detail::add_conv_ops(entries);
  detail::add_matmul_ops(entries);
  detail::add_normalization_ops(entries);
  detail::add_pooling_ops(entries);
  detail::add_reduction_ops(entries);
  detail::add_shape_ops(entries);
  detail::add_data_movement_ops(entries);
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

std::vector<graph::TensorType> OpInfo::infer(graph::Node& n) const {
  validate(n);
  std::vector<graph::TensorType> out = infer_fn(n);
  INGOT_ICHECK(out.size() == n.outputs.size(), "{}: inference gave {} types for {} outputs",
               n.describe(), out.size(), n.outputs.size());
  return out;
}

double OpInfo::flops(const graph::Node& n) const {
  return flops_fn(n);
}

}  // namespace ingot::ops
