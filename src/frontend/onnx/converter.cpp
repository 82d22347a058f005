// NodeConverter: typed access to one ONNX node's inputs and attributes, and emission of the graph
// nodes and constants it becomes; plus small tensor helpers shared by the converters.
#include "frontend/onnx/converter.h"

#include <cstring>
#include <limits>

#include "frontend/onnx/tensor_proto.h"
#include "support/bfloat16.h"

namespace ingot::frontend::detail {

std::string ImportState::fresh_name(const std::string& base) {
  std::string name = base;
  for (int i = 1; taken_names.count(name); ++i) name = fmt::format("{}_{}", base, i);
  taken_names.insert(name);
  return name;
}

graph::Value* ImportState::lookup(const std::string& name) {
  auto it = values.find(name);
  if (it != values.end()) return it->second;
  graph::Value* outer = parent != nullptr ? parent->lookup(name) : nullptr;
  if (outer == nullptr) return nullptr;
  graph::Value* local = nullptr;
  if (outer->is_constant()) {
    local = graph->add_constant(name, outer->constant);
  } else {
    local = graph->add_value(name, outer->type);  // the type is bound again by inference
    captured_outer.push_back(outer);
    captured_local.push_back(local);
  }
  values[name] = local;
  return local;
}

NodeConverter::NodeConverter(ImportState& state, const onnx::NodeProto& proto, std::string name)
    : state_(state), proto_(proto), name_(std::move(name)) {}

// ---- inputs ----

bool NodeConverter::has_input(int i) const {
  return i < proto_.input_size() && !proto_.input(i).empty();
}

graph::Value* NodeConverter::input(int i, const char* what) const {
  if (!has_input(i)) fail("required input '{}' (#{}) is missing", what, i);
  return optional_input(i);
}

graph::Value* NodeConverter::optional_input(int i) const {
  if (!has_input(i)) return nullptr;
  graph::Value* v = state_.lookup(proto_.input(i));
  INGOT_ICHECK(v != nullptr, "input '{}' of node '{}' not defined (graph check missed it)",
               proto_.input(i), name_);
  return v;
}

graph::TensorPtr NodeConverter::constant_input(int i, const char* what) const {
  graph::Value* v = optional_input(i);
  if (!v) return nullptr;
  if (!v->is_constant()) fail("input '{}' must be a compile-time constant", what);
  return v->constant;
}

graph::TensorPtr NodeConverter::static_input(int i, const char* what,
                                             graph::Value** deferred) const {
  graph::Value* v = optional_input(i);
  if (!v) return nullptr;
  if (v->is_constant()) return v->constant;
  if (!v->producer)
    fail(
        "input '{}' must be a compile-time constant, but it is the graph input '{}' (a run-time "
        "value would make the output shape data-dependent; freeze it into an initializer, or "
        "specialise it with --specialize-inputs)",
        what, v->name);
  *deferred = v;
  return nullptr;
}

graph::TensorPtr NodeConverter::value_input(int i, const char* /*what*/,
                                            graph::Value** deferred) const {
  graph::Value* v = optional_input(i);
  if (!v) return nullptr;
  if (v->is_constant()) return v->constant;
  *deferred = v;
  return nullptr;
}

std::optional<graph::DType> NodeConverter::known_dtype(const graph::Value* v) {
  if (v && v->producer == nullptr) return v->type.dtype;
  return std::nullopt;
}

// ---- attributes ----

bool NodeConverter::has_attr(const std::string& name) const {
  for (const auto& a : proto_.attribute())
    if (a.name() == name) return true;
  return false;
}

const onnx::AttributeProto* NodeConverter::find_attr(const std::string& name, int expected_type) {
  for (const auto& a : proto_.attribute()) {
    if (a.name() != name) continue;
    consumed_.insert(name);
    if (a.type() != expected_type) {
      auto type_name = [](int t) {
        return onnx::AttributeProto_AttributeType_IsValid(t)
                   ? onnx::AttributeProto_AttributeType_Name(
                         static_cast<onnx::AttributeProto_AttributeType>(t))
                   : std::to_string(t);
      };
      fail("attribute '{}' has type {}; expected {}", name, type_name(a.type()),
           type_name(expected_type));
    }
    return &a;
  }
  return nullptr;
}

const onnx::GraphProto* NodeConverter::attr_graph(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::GRAPH)) return &a->g();
  return nullptr;
}

std::optional<int64_t> NodeConverter::attr_int(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::INT)) return a->i();
  return std::nullopt;
}

std::optional<double> NodeConverter::attr_float(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::FLOAT)) return double(a->f());
  return std::nullopt;
}

std::optional<std::string> NodeConverter::attr_string(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::STRING)) return a->s();
  return std::nullopt;
}
std::optional<std::vector<std::string>> NodeConverter::attr_strings(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::STRINGS))
    return std::vector<std::string>(a->strings().begin(), a->strings().end());
  return std::nullopt;
}

std::optional<std::vector<int64_t>> NodeConverter::attr_ints(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::INTS))
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  return std::nullopt;
}

std::optional<std::vector<double>> NodeConverter::attr_floats(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::FLOATS))
    return std::vector<double>(a->floats().begin(), a->floats().end());
  return std::nullopt;
}

const onnx::TensorProto* NodeConverter::attr_tensor(const std::string& name) {
  if (auto* a = find_attr(name, onnx::AttributeProto::TENSOR)) return &a->t();
  return nullptr;
}

void NodeConverter::copy_attr(const std::string& name, graph::Attrs& attrs) {
  for (const auto& a : proto_.attribute()) {
    if (a.name() != name) continue;
    switch (a.type()) {
      case onnx::AttributeProto::INT:
        attrs.set(name, *attr_int(name));
        return;
      case onnx::AttributeProto::INTS:
        attrs.set(name, *attr_ints(name));
        return;
      case onnx::AttributeProto::FLOAT:
        attrs.set(name, *attr_float(name));
        return;
      case onnx::AttributeProto::FLOATS:
        attrs.set(name, *attr_floats(name));
        return;
      case onnx::AttributeProto::STRING:
        attrs.set(name, *attr_string(name));
        return;
      case onnx::AttributeProto::STRINGS:
        attrs.set(name, *attr_strings(name));
        return;
      default:
        fail("attribute '{}' has an unsupported type", name);
    }
  }
}

void NodeConverter::check_all_attrs_consumed() const {
  for (const auto& a : proto_.attribute())
    if (!consumed_.count(a.name())) fail("unsupported attribute '{}'", a.name());
}

// ---- outputs and emission ----

bool NodeConverter::output_used(int i) const {
  return i < proto_.output_size() && !proto_.output(i).empty() &&
         state_.used_names.count(proto_.output(i));
}

void NodeConverter::require_unused_output(int i, const char* what) const {
  if (output_used(i))
    fail("output '{}' ({}) is not supported; only inference outputs can be used", proto_.output(i),
         what);
}

graph::Node* NodeConverter::add_node(ops::OpKind op, std::string name,
                                     std::vector<graph::Value*> inputs,
                                     std::vector<std::string> outputs, graph::Attrs attrs) {
  graph::Node* n = state_.graph->add_node(op, std::move(name), std::move(inputs),
                                          std::move(outputs), std::move(attrs));
  n->opset = state_.opset;
  return n;
}

graph::Node* NodeConverter::emit(ops::OpKind op, std::vector<graph::Value*> inputs,
                                 graph::Attrs attrs, int num_outputs) {
  INGOT_ICHECK(num_outputs <= proto_.output_size(), "emit: node '{}' has only {} outputs", name_,
               proto_.output_size());
  std::vector<std::string> names;
  for (int i = 0; i < num_outputs; ++i) {
    const std::string& onnx_name = proto_.output(i);
    names.push_back(onnx_name.empty() ? state_.fresh_name(fmt::format("{}:{}", name_, i))
                                      : onnx_name);
  }
  graph::Node* n = add_node(op, name_, std::move(inputs), names, std::move(attrs));
  for (int i = 0; i < num_outputs; ++i)
    if (!proto_.output(i).empty()) state_.values[proto_.output(i)] = n->outputs[size_t(i)];
  return n;
}

graph::Value* NodeConverter::emit_helper(ops::OpKind op, const std::string& suffix,
                                         std::vector<graph::Value*> inputs, graph::Attrs attrs) {
  std::string node_name = fmt::format("{}/{}", name_, suffix);
  std::string out = state_.fresh_name(node_name);
  return add_node(op, node_name, std::move(inputs), {out}, std::move(attrs))->outputs[0];
}

graph::Node* NodeConverter::emit_output(int i, ops::OpKind op, const std::string& suffix,
                                        std::vector<graph::Value*> inputs, graph::Attrs attrs) {
  INGOT_ICHECK(i < proto_.output_size(), "emit_output: node '{}' has no output {}", name_, i);
  const std::string& onnx_name = proto_.output(i);
  std::string out =
      onnx_name.empty() ? state_.fresh_name(fmt::format("{}:{}", name_, i)) : onnx_name;
  graph::Node* n =
      add_node(op, fmt::format("{}/{}", name_, suffix), std::move(inputs), {out}, std::move(attrs));
  bind_output(i, n->outputs[0]);
  return n;
}

graph::Value* NodeConverter::make_constant(const std::string& suffix, graph::TensorPtr data) {
  return state_.graph->add_constant(state_.fresh_name(fmt::format("{}/{}", name_, suffix)),
                                    std::move(data));
}

graph::Value* NodeConverter::make_output_constant(int i, graph::TensorPtr data) {
  INGOT_ICHECK(i < proto_.output_size(), "make_output_constant: node '{}' has no output {}", name_,
               i);
  const std::string& onnx_name = proto_.output(i);
  std::string name =
      onnx_name.empty() ? state_.fresh_name(fmt::format("{}:{}", name_, i)) : onnx_name;
  graph::Value* v = state_.graph->add_constant(name, std::move(data));
  bind_output(i, v);
  return v;
}

void NodeConverter::bind_output(int i, graph::Value* v) {
  INGOT_ICHECK(i < proto_.output_size(), "bind_output: node '{}' has no output {}", name_, i);
  if (!proto_.output(i).empty()) state_.values[proto_.output(i)] = v;
}

// ---- tensor helpers ----

namespace {

uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0));  // inf/nan
  if (exp >= 31) return uint16_t(sign | 0x7c00u);  // overflow
  if (exp <= 0) {                                  // subnormal
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000u;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1))) ++half;  // may carry into the exponent
  return uint16_t(half);
}

template <typename T>
std::vector<uint8_t> scalar_bytes(T v) {
  std::vector<uint8_t> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// An integral double as uint64 bits: negative values wrap (as ONNX's integer Cast does), values
// past int64 convert directly; both without the undefined double -> unsigned conversion.
uint64_t as_uint64(double v) {
  return v < 0 ? uint64_t(int64_t(v)) : uint64_t(v);
}

}  // namespace

graph::TensorPtr make_i64_tensor(std::vector<int64_t> values, std::vector<int64_t> shape) {
  std::vector<uint8_t> bytes(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return std::make_shared<graph::Tensor>(graph::DType::kI64, std::move(shape), std::move(bytes));
}

graph::TensorPtr make_scalar(graph::DType dtype, double value) {
  using graph::DType;
  std::vector<uint8_t> b;
  switch (dtype) {
    case DType::kF32:
      b = scalar_bytes(float(value));
      break;
    case DType::kF64:
      b = scalar_bytes(value);
      break;
    case DType::kF16:
      b = scalar_bytes(float_to_half_bits(float(value)));
      break;
    case DType::kBF16:
      b = scalar_bytes(float_to_bfloat16_bits(float(value)));
      break;
    case DType::kI8:
      b = scalar_bytes(int8_t(value));
      break;
    case DType::kI16:
      b = scalar_bytes(int16_t(value));
      break;
    case DType::kI32:
      b = scalar_bytes(int32_t(value));
      break;
    case DType::kI64:
      b = scalar_bytes(int64_t(value));
      break;
    case DType::kU8:
      b = scalar_bytes(uint8_t(value));
      break;
    case DType::kU16:
      b = scalar_bytes(uint16_t(as_uint64(value)));
      break;
    case DType::kU32:
      b = scalar_bytes(uint32_t(as_uint64(value)));
      break;
    case DType::kU64:
      b = scalar_bytes(as_uint64(value));
      break;
    case DType::kBool:
      b = scalar_bytes(uint8_t(value != 0));
      break;
  }
  return std::make_shared<graph::Tensor>(dtype, std::vector<int64_t>{}, std::move(b));
}

std::vector<int64_t> tensor_to_i64s(const graph::Tensor& t) {
  std::vector<int64_t> out(size_t(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) out[size_t(i)] = t.get_i64(i);
  return out;
}

void static_scalar_input(NodeConverter& c, int slot, const char* what, const char* attr,
                         bool is_float, graph::Attrs& attrs, std::vector<graph::Value*>& inputs,
                         bool runtime) {
  graph::Value* deferred = nullptr;
  graph::TensorPtr t =
      runtime ? c.value_input(slot, what, &deferred) : c.static_input(slot, what, &deferred);
  if (t) {
    if (t->num_elements() != 1)
      c.fail("input '{}' must hold one value, got {}", what, t->num_elements());
    if (is_float)
      attrs.set(attr, t->get_f64(0));
    else
      attrs.set(attr, t->get_i64(0));
  }
  if (!deferred) return;
  inputs.resize(size_t(slot), nullptr);
  inputs.push_back(deferred);
}

}  // namespace ingot::frontend::detail
