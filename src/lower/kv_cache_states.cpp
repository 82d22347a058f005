// kv_cache_states: which input/output pairs become states, their capacity layout, and the
// kernel that appends a run's new entries in place.
#include "lower/kv_cache_states.h"

#include <fmt/format.h>

#include <algorithm>

#include "lower/compute/common.h"
#include "ops/op.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::lower {

namespace {

using graph::Value;

bool is_input(const graph::Graph& g, const Value* v) {
  return std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end();
}

int64_t output_count(const graph::Graph& g, const Value* v) {
  return std::count(g.outputs.begin(), g.outputs.end(), v);
}

// The pair whose output is `present`, or nullopt when it is not Concat(graph input, new).
std::optional<KvCacheState> match_pair(const graph::Graph& g, const Value* present) {
  const graph::Node* n = present->producer;
  if (n == nullptr || n->op != ops::OpKind::Concat || n->inputs.size() != 2) return std::nullopt;
  const Value* past = n->inputs[0];
  const Value* added = n->inputs[1];
  if (past == nullptr || added == nullptr || !is_input(g, past) || is_input(g, added) ||
      output_count(g, present) != 1 || output_count(g, past) != 0)
    return std::nullopt;
  const int rank = present->type.rank();
  int axis = int(n->attrs.get_int("axis", 0));
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  const graph::Dim& length = past->type.shape[size_t(axis)];
  if (length.is_static() || length.sym().symbol_name().empty()) return std::nullopt;
  KvCacheState s{
      past, present, n, added, axis, length.sym().symbol_name(), added->type.shape[size_t(axis)],
      {}};
  return s;
}

}  // namespace

std::vector<KvCacheState> find_kv_cache_states(const graph::Graph& g, const SymbolTable& symbols,
                                               int64_t capacity) {
  if (capacity < 1) fail_user("--kv-cache: the capacity must be at least 1, got {}", capacity);
  std::vector<KvCacheState> states;
  for (const Value* out : g.outputs) {
    std::optional<KvCacheState> s = match_pair(g, out);
    if (!s) continue;
    const std::string where =
        fmt::format("--kv-cache: input '{}' and output '{}'", s->past->name, s->present->name);
    if (s->past->type.dtype != s->added->type.dtype)
      fail_user("{}: the new entries are {}, the cache {}", where,
                graph::dtype_name(s->added->type.dtype), graph::dtype_name(s->past->type.dtype));
    for (int d = 0; d < s->past->type.rank(); ++d) {
      if (d == s->axis) {
        s->capacity_shape.push_back(capacity);
        continue;
      }
      const graph::Dim& p = s->past->type.shape[size_t(d)];
      if (!p.is_static() || s->added->type.shape[size_t(d)] != p)
        fail_user("{}: dim {} must be static and the same in the new entries ({} and {})", where, d,
                  p.str(), s->added->type.shape[size_t(d)].str());
      s->capacity_shape.push_back(p.value);
    }
    if (!s->step.is_static() && s->step.sym().symbol_name().empty())
      fail_user("{}: the new entries' dim {} is '{}'; it must be one symbol or a constant", where,
                s->axis, s->step.str());
    if (!states.empty() && states[0].length_symbol != s->length_symbol)
      fail_user("{}: its length is '{}', but input '{}' has '{}'; every cache shares one length",
                where, s->length_symbol, states[0].past->name, states[0].length_symbol);
    if (!states.empty() && states[0].step != s->step)
      fail_user("{}: it grows by '{}', but output '{}' by '{}'", where, s->step.str(),
                states[0].present->name, states[0].step.str());
    states.push_back(*s);
  }
  if (states.empty())
    fail_user(
        "--kv-cache: the model has no input 'past' with an output Concat(past, new) along a "
        "symbolic dim (a key/value cache's past_key -> present_key)");
  // The length comes from the session: no other input may have it as a dim.
  for (const Value* in : g.inputs) {
    if (std::any_of(states.begin(), states.end(),
                    [&](const KvCacheState& s) { return s.past == in; }))
      continue;
    for (const graph::Dim& d : in->type.shape)
      if (d.sym().symbols().count(states[0].length_symbol))
        fail_user(
            "--kv-cache: input '{}' has the cache length '{}' in its shape ({}); the session "
            "keeps that length, so only the cache inputs may have it",
            in->name, states[0].length_symbol, in->type.str());
  }
  const tir::SymbolDesc& length = symbols.symbol(states[0].length_symbol);
  if (length.min > capacity)
    fail_user("--kv-cache {}: the cache length '{}' is at least {} (--dim-bounds)", capacity,
              length.name, length.min);
  return states;
}

graph::TensorType capacity_type(const KvCacheState& s) {
  graph::TensorType t{s.past->type.dtype, {}};
  for (int64_t d : s.capacity_shape) t.shape.push_back(graph::Dim::fixed(d));
  return t;
}

tir::StateDesc describe_state(const KvCacheState& s, tir::TensorDesc tensor,
                              const SymbolTable& symbols) {
  auto position = [&](const std::string& name) {
    return int(&symbols.symbol(name) - symbols.symbols().data());
  };
  tir::StateDesc d;
  d.tensor = std::move(tensor);
  d.tensor.name = s.past->name;
  d.axis = s.axis;
  d.length_symbol = position(s.length_symbol);
  d.step_symbol = s.step.is_static() ? -1 : position(s.step.sym().symbol_name());
  d.step = s.step.is_static() ? s.step.value : 0;
  return d;
}

std::vector<tir::Expr> state_strides(const KvCacheState& s) {
  std::vector<tir::Expr> strides(s.capacity_shape.size());
  int64_t stride = 1;
  for (size_t d = s.capacity_shape.size(); d-- > 0;) {
    strides[d] = tir::i64(stride);
    stride *= s.capacity_shape[d];
  }
  return strides;
}

std::optional<std::vector<tir::Expr>> unit_reshape_strides(const graph::TensorType& in,
                                                           const graph::TensorType& out,
                                                           const std::vector<tir::Expr>& from) {
  std::vector<tir::Expr> strides;
  size_t d = 0;
  auto skip_units = [&] {
    while (d < in.shape.size() && in.shape[d].is_static() && in.shape[d].value == 1) ++d;
  };
  for (const graph::Dim& o : out.shape) {
    if (o.is_static() && o.value == 1) {
      strides.push_back(tir::i64(0));
      continue;
    }
    skip_units();
    if (d == in.shape.size() || in.shape[d] != o) return std::nullopt;
    strides.push_back(from[d++]);
  }
  skip_units();
  if (d != in.shape.size()) return std::nullopt;
  return strides;
}

tir::Stmt append_to_state(const tir::Buffer& added, const tir::Buffer& state, int axis,
                          const tir::Expr& length) {
  return loop_nest(Extents{added->shape}, "i", [&](const Index& idx) {
    Index at = idx;
    at[size_t(axis)] = length + idx[size_t(axis)];
    return tir::BufferStore::make(state, added.load(idx), at);
  });
}

}  // namespace ingot::lower
