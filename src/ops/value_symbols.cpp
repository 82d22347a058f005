// Value symbols at the graph level: naming, and which ops define them (see value_symbols.h).
#include "ops/value_symbols.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ops/shape_util.h"

namespace ingot::ops {

namespace {

bool is_caller_input(const graph::Value* v) {
  return v->producer == nullptr && !v->is_constant() && !v->body_input && v->symbolic_value.empty();
}

// `seen` holds the values already found computable (a DAG: a failure ends the walk).
bool computed_from_inputs(const graph::Value* v, std::set<const graph::Value*>& seen) {
  if (is_caller_input(v)) return true;
  if (v->producer == nullptr || v->is_constant() || !v->symbolic_value.empty() || v->body_input)
    return false;
  if (!seen.insert(v).second) return true;
  const graph::Node& n = *v->producer;
  if (!computes_small_values(n.op) || !v->type.is_static() ||
      v->type.num_elements() > kMaxSmallValueElements)
    return false;
  bool reads_input = false;
  for (const graph::Value* u : n.inputs) {
    if (u == nullptr || u->is_constant() || !u->symbolic_value.empty()) continue;
    if (!computed_from_inputs(u, seen)) return false;
    reads_input = true;
  }
  return reads_input;
}

}  // namespace

bool computes_small_values(OpKind op) {
  switch (op) {
    case OpKind::Identity:
    case OpKind::Cast:
    case OpKind::Reshape:
    case OpKind::Flatten:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Neg:
    case OpKind::Abs:
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::Not:
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Equal:
    case OpKind::Less:
    case OpKind::LessOrEqual:
    case OpKind::Greater:
    case OpKind::GreaterOrEqual:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Where:
    case OpKind::Concat:
    case OpKind::Gather:
    case OpKind::Slice:
    case OpKind::Split:
    case OpKind::Expand:
      return true;
    default:
      return false;
  }
}

bool is_runtime_value(const graph::Value* v) {
  if (v == nullptr) return false;
  std::set<const graph::Value*> seen;
  return computed_from_inputs(v, seen);
}

graph::Dim value_dim(const graph::Node& n, int output, int axis) {
  const graph::Value* out = n.outputs.at(size_t(output));
  return graph::Dim::named(fmt::format("{}.v{}", out != nullptr ? out->name : n.name, axis));
}

int value_symbol_axis(const graph::Node& n, int output, const std::string& symbol) {
  const graph::Value* out = n.outputs.at(size_t(output));
  if (out == nullptr) return -1;
  for (int a = 0; a < out->type.rank(); ++a)
    if (value_dim(n, output, a).sym().symbol_name() == symbol) return a;
  return -1;
}

bool has_value_axes(const graph::Node& n) {
  switch (n.op) {
    case OpKind::ReduceMean:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ReduceProd:
    case OpKind::ReduceL1:
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare:
    case OpKind::ReduceLogSum:
    case OpKind::ReduceLogSumExp:
      return n.inputs.size() > 1 && is_runtime_value(n.inputs[1]);
    default:
      return false;
  }
}

std::string kept_extent(const graph::Node& n, int axis) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.k{}", out != nullptr ? out->name : n.name, axis);
}

int value_shape_slot(const graph::Node& n) {
  int slot = -1;
  if (n.op == OpKind::Range) {  // any of start, limit, delta
    for (int i = 0; i < 3 && i < int(n.inputs.size()); ++i)
      if (is_runtime_value(n.inputs[size_t(i)])) return i;
    return -1;
  }
  switch (n.op) {
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
    case OpKind::Expand:
    case OpKind::TopK:
    case OpKind::Split:
    case OpKind::Tile:
    case OpKind::OneHot:
    case OpKind::AffineGrid:
      slot = 1;
      break;
    case OpKind::MaxUnpool:
      slot = 2;
      break;
    case OpKind::ConstantOfShape:
    case OpKind::HannWindow:
    case OpKind::HammingWindow:
    case OpKind::BlackmanWindow:
      slot = 0;
      break;
    default:
      return -1;
  }
  return slot < int(n.inputs.size()) && is_runtime_value(n.inputs[size_t(slot)]) ? slot : -1;
}

bool has_data_dependent_size(const graph::Node& n) {
  return n.op == OpKind::NonZero || n.op == OpKind::Compress || n.op == OpKind::Unique ||
         n.op == OpKind::NonMaxSuppression;
}

bool pad_reads_values(const graph::Node& n) {
  if (n.op == OpKind::CenterCropPad) return n.inputs.size() > 1 && is_runtime_value(n.inputs[1]);
  if (n.op != OpKind::Pad) return false;
  for (size_t slot : {size_t(1), size_t(3)})
    if (slot < n.inputs.size() && is_runtime_value(n.inputs[slot])) return true;
  return false;
}

bool resize_reads_values(const graph::Node& n) {
  if (n.op != OpKind::Resize) return false;
  for (size_t slot = 1; slot <= 3 && slot < n.inputs.size(); ++slot)
    if (is_runtime_value(n.inputs[slot])) return true;
  return false;
}

bool dft_reads_axis(const graph::Node& n) {
  return n.op == OpKind::DFT && n.inputs.size() > 2 && is_runtime_value(n.inputs[2]);
}

std::string dft_axis(const graph::Node& n) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.a", out != nullptr ? out->name : n.name);
}

bool stft_reads_values(const graph::Node& n) {
  if (n.op != OpKind::STFT) return false;
  for (size_t slot : {size_t(1), size_t(3)})
    if (slot < n.inputs.size() && is_runtime_value(n.inputs[slot])) return true;
  return false;
}

std::string stft_step(const graph::Node& n) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.s", out != nullptr ? out->name : n.name);
}

std::string stft_frame(const graph::Node& n) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.f", out != nullptr ? out->name : n.name);
}

bool mel_reads_values(const graph::Node& n) {
  return n.op == OpKind::MelWeightMatrix && n.inputs.size() > 1 &&
         (is_runtime_value(n.inputs[0]) || is_runtime_value(n.inputs[1]));
}

bool col2im_reads_values(const graph::Node& n) {
  return n.op == OpKind::Col2Im && n.inputs.size() > 2 &&
         ((n.inputs[1] != nullptr && is_runtime_value(n.inputs[1])) ||
          (n.inputs[2] != nullptr && is_runtime_value(n.inputs[2])));
}

std::string col2im_block(const graph::Node& n, int d) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.k{}", out != nullptr ? out->name : n.name, d);
}

std::string pad_begin(const graph::Node& n, int axis) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.b{}", out != nullptr ? out->name : n.name, axis);
}

bool slice_reads_values(const graph::Node& n) {
  if (n.op != OpKind::Slice) return false;
  for (size_t slot = 1; slot <= 4 && slot < n.inputs.size(); ++slot)
    if (is_runtime_value(n.inputs[slot])) return true;
  return false;
}

std::string slice_start(const graph::Node& n, int axis) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.s{}", out != nullptr ? out->name : n.name, axis);
}

std::string slice_step(const graph::Node& n, int axis) {
  const graph::Value* out = n.outputs.at(0);
  return fmt::format("{}.t{}", out != nullptr ? out->name : n.name, axis);
}

int64_t value_symbol_min(const graph::Node& n, const std::string& symbol) {
  if (pad_reads_values(n))  // a negative pad crops
    for (int a = 0; a < n.inputs[0]->type.rank(); ++a)
      if (symbol == pad_begin(n, a)) return -(int64_t(1) << 31);
  if (slice_reads_values(n))
    for (int a = 0; a < n.inputs[0]->type.rank(); ++a)
      if (symbol == slice_step(n, a)) return -(int64_t(1) << 31);
  return 0;
}

std::vector<std::string> value_symbols_of(const graph::Node& n) {
  std::vector<std::string> out;
  if (pad_reads_values(n) && n.outputs.at(0) != nullptr) {  // every dim and its begin pad
    for (int a = 0; a < n.outputs[0]->type.rank(); ++a) {
      out.push_back(value_dim(n, 0, a).sym().symbol_name());
      out.push_back(pad_begin(n, a));
    }
    return out;
  }
  if (slice_reads_values(n) && n.outputs.at(0) != nullptr) {
    for (int a = 0; a < n.outputs[0]->type.rank(); ++a) {
      if (!(n.outputs[0]->type.shape[size_t(a)] == value_dim(n, 0, a))) continue;
      out.push_back(value_dim(n, 0, a).sym().symbol_name());
      out.push_back(slice_start(n, a));
      out.push_back(slice_step(n, a));
    }
    return out;
  }
  if (dft_reads_axis(n)) out.push_back(dft_axis(n));
  if (stft_reads_values(n)) {
    out.push_back(stft_step(n));
    out.push_back(stft_frame(n));
  }
  if (col2im_reads_values(n) && n.outputs.at(0) != nullptr)
    for (int d = 0; d + 2 < n.outputs[0]->type.rank(); ++d) out.push_back(col2im_block(n, d));
  if (value_shape_slot(n) < 0 && !has_value_axes(n) && !has_data_dependent_size(n) &&
      !resize_reads_values(n) && !dft_reads_axis(n) && !stft_reads_values(n) &&
      !mel_reads_values(n) && !col2im_reads_values(n))
    return out;
  if (has_value_axes(n))
    for (int d = 0; d < n.inputs[0]->type.rank(); ++d) out.push_back(kept_extent(n, d));
  for (size_t o = 0; o < n.outputs.size(); ++o)  // the output dims that are value symbols
    if (n.outputs[o] != nullptr)
      for (int a = 0; a < n.outputs[o]->type.rank(); ++a)
        if (n.outputs[o]->type.shape[size_t(a)] == value_dim(n, int(o), a))
          out.push_back(value_dim(n, int(o), a).sym().symbol_name());
  return out;
}

std::optional<graph::SymExpr> value_symbol_bound(const graph::Node& n, const std::string& symbol) {
  if (pad_reads_values(n)) {  // pads are any size
    for (int a = 0; a < n.inputs[0]->type.rank(); ++a)
      if (symbol == pad_begin(n, a) || value_symbol_axis(n, 0, symbol) == a)
        return graph::SymExpr(int64_t(1) << 31);
    return std::nullopt;
  }
  if (slice_reads_values(n)) {  // a length or start is at most the dim; a step is any size
    for (int a = 0; a < n.inputs[0]->type.rank(); ++a) {
      if (symbol == slice_step(n, a)) return graph::SymExpr(int64_t(1) << 31);
      if (symbol == slice_start(n, a) || value_symbol_axis(n, 0, symbol) == a)
        return n.inputs[0]->type.shape[size_t(a)].sym();
    }
    return std::nullopt;
  }
  if (has_value_axes(n)) {  // each dim is at most the largest input dim
    const std::vector<std::string> names = value_symbols_of(n);
    if (std::find(names.begin(), names.end(), symbol) == names.end()) return std::nullopt;
    graph::SymExpr bound = 1;
    for (const graph::Dim& d : n.inputs[0]->type.shape) bound = graph::SymExpr::max(bound, d.sym());
    return bound;
  }
  if (has_data_dependent_size(n)) {  // at most every element, or every slice along the axis
    const int axis = value_symbol_axis(n, 0, symbol);
    if (axis < 0) return std::nullopt;
    if (n.op == OpKind::NonMaxSuppression)  // every box of every class of every batch
      return detail::dim_product(n.inputs[1]->type.shape).sym();
    if (n.op != OpKind::NonZero && n.attrs.has("axis"))
      return n.inputs[0]->type.shape[size_t(axis)].sym();
    return detail::dim_product(n.inputs[0]->type.shape).sym();
  }
  if (dft_reads_axis(n)) {  // the axis is below the rank; a length is any size
    if (symbol == dft_axis(n)) return graph::SymExpr(int64_t(n.inputs[0]->type.rank()));
    return value_symbol_axis(n, 0, symbol) >= 0 ? std::optional(graph::SymExpr(int64_t(1) << 31))
                                                : std::nullopt;
  }
  if (stft_reads_values(n)) {  // a frame count, frame length or bin count is at most the length
    if (symbol == stft_step(n)) return graph::SymExpr(int64_t(1) << 31);
    if (symbol == stft_frame(n) || value_symbol_axis(n, 0, symbol) >= 0)
      return n.inputs[0]->type.shape[1].sym();
    return std::nullopt;
  }
  if (col2im_reads_values(n)) {  // channels at most x's; image dims and blocks any size
    if (value_symbol_axis(n, 0, symbol) == 1) return n.inputs[0]->type.shape[1].sym();
    const std::vector<std::string> names = value_symbols_of(n);
    if (std::find(names.begin(), names.end(), symbol) == names.end()) return std::nullopt;
    return graph::SymExpr(int64_t(1) << 31);
  }
  if (resize_reads_values(n) || mel_reads_values(n))  // the caller's sizes are any size
    return value_symbol_axis(n, 0, symbol) >= 0 ? std::optional(graph::SymExpr(int64_t(1) << 31))
                                                : std::nullopt;
  if (value_shape_slot(n) < 0) return std::nullopt;
  if (n.op == OpKind::Split) {  // a part is at most the dim it splits
    for (size_t o = 0; o < n.outputs.size(); ++o)
      if (int a = value_symbol_axis(n, int(o), symbol); a >= 0)
        return n.inputs[0]->type.shape[size_t(a)].sym();
    return std::nullopt;
  }
  if (value_symbol_axis(n, 0, symbol) < 0) return std::nullopt;
  const graph::SymExpr unbounded = int64_t(1) << 31;  // sizes the caller's values choose
  graph::SymExpr largest = 1;                         // x's largest dim
  if (n.op != OpKind::ConstantOfShape)
    for (const graph::Dim& d : n.inputs[0]->type.shape)
      largest = graph::SymExpr::max(largest, d.sym());
  switch (n.op) {
    case OpKind::Reshape: {  // each dim is at most the element count, unless that is 0
      graph::SymExpr count = detail::dim_product(n.inputs[0]->type.shape).sym();
      return count == graph::SymExpr(0) ? graph::SymExpr(int64_t(1) << 40) : count;
    }
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return largest;
    case OpKind::TopK:  // k is at most the axis' size
      return n.inputs[0]->type.shape[size_t(value_symbol_axis(n, 0, symbol))].sym();
    case OpKind::Expand:
    case OpKind::Tile:
      return graph::SymExpr::max(largest, unbounded);
    case OpKind::OneHot:
    case OpKind::Range:
    case OpKind::HannWindow:
    case OpKind::HammingWindow:
    case OpKind::BlackmanWindow:
      return unbounded;
    default:  // ConstantOfShape
      return unbounded;
  }
}

}  // namespace ingot::ops
