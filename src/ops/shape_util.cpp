// Helpers for op type inference: dim arithmetic, broadcasting, axis normalisation, checks.
#include "ops/shape_util.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "support/error.h"

namespace ingot::ops::detail {

std::string shape_str(const std::vector<Dim>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ',';
    out += s[i].str();
  }
  return out + "]";
}

std::vector<AttrSpec> epilogue_attr_specs() {
  return {{"activation", AttrType::kString},
          {"activation_params", AttrType::kFloats},
          {"activation_alpha", AttrType::kFloat},
          {"activation_beta", AttrType::kFloat},
          {"activation_gamma", AttrType::kFloat}};
}

void check_fused_activation(const Node& n) {
  std::string act = n.attrs.get_string("activation", "");
  auto kind = op_from_name(act);
  bool generic = kind && is_epilogue_activation(*kind);
  if (!act.empty() && act != "Relu" && act != "Clip" && act != "Gelu" && !generic)
    fail_user("{}: unsupported fused activation '{}'", n.describe(), act);
  if (act == "Clip" && n.attrs.get_floats("activation_params", {}).size() != 2)
    fail_user("{}: fused Clip needs activation_params [min, max]", n.describe());
}

bool has_input(const Node& n, int i) {
  return i < int(n.inputs.size()) && n.inputs[i] != nullptr;
}

const TensorType& input_type(const Node& n, int i, const char* what) {
  if (!has_input(n, i)) fail_user("{}: missing required input '{}'", n.describe(), what);
  return n.inputs[i]->type;
}

std::vector<Dim> broadcast_shapes(const Node& n, const std::vector<Dim>& a,
                                  const std::vector<Dim>& b) {
  size_t r = std::max(a.size(), b.size());
  std::vector<Dim> out(r);
  for (size_t i = 0; i < r; ++i) {
    // Align from the right.
    const Dim one = Dim::fixed(1);
    const Dim& da = i + a.size() >= r ? a[i + a.size() - r] : one;
    const Dim& db = i + b.size() >= r ? b[i + b.size() - r] : one;
    if (da == db || db == one) {
      out[i] = da;
    } else if (da == one) {
      out[i] = db;
    } else if (!da.is_static() && db.is_static()) {
      out[i] = db;  // N with 5 -> 5 (N must be 5 at run time; 1 is not served)
      n.assumed_equal.push_back({da.sym(), db.sym()});
    } else if (da.is_static() && !db.is_static()) {
      out[i] = da;
      n.assumed_equal.push_back({da.sym(), db.sym()});
    } else if (!da.is_static() && !db.is_static()) {
      out[i] = da;  // two different symbols: keep the first (they must agree at run time)
      n.assumed_equal.push_back({da.sym(), db.sym()});
    } else {
      fail_user("{}: shapes {} and {} do not broadcast", n.describe(), shape_str(a), shape_str(b));
    }
  }
  return out;
}

Dim merge_dims(const Node& n, const Dim& a, const Dim& b, const std::string& what) {
  if (a == b) return a;
  if (!a.is_static() || !b.is_static()) n.assumed_equal.push_back({a.sym(), b.sym()});
  if (!a.is_static()) return b;
  if (!b.is_static()) return a;
  fail_user("{}: {} differ ({} vs {})", n.describe(), what, a.value, b.value);
}

int64_t normalize_axis(const Node& n, int64_t axis, int64_t rank, const char* attr) {
  if (axis < -rank || axis >= rank)
    fail_user("{}: attribute '{}' = {} is out of range for rank {}", n.describe(), attr, axis,
              rank);
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> normalize_axes(const Node& n, const std::vector<int64_t>& axes, int64_t rank,
                                    const char* attr) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    int64_t x = normalize_axis(n, a, rank, attr);
    if (std::find(out.begin(), out.end(), x) != out.end())
      fail_user("{}: attribute '{}' repeats axis {}", n.describe(), attr, x);
    out.push_back(x);
  }
  return out;
}

Dim derived_dim(const Node& n, int output, int axis) {
  std::string base = output < int(n.outputs.size()) && n.outputs[output] != nullptr
                         ? n.outputs[output]->name
                         : n.name;
  return Dim::named(fmt::format("{}_d{}", base, axis));
}

Dim dim_product(const std::vector<Dim>& dims) {
  SymExpr prod(1);
  for (const Dim& d : dims) prod = prod * d.sym();
  return Dim::of(prod);
}

std::optional<std::vector<graph::SymExpr>> shape_operand(const Node& n, int slot, const char* attr,
                                                         const char* what) {
  std::vector<graph::SymExpr> out;
  if (has_input(n, slot)) {
    const graph::Value* v = n.inputs[size_t(slot)];
    if (!v->symbolic_value.empty()) return v->symbolic_value;
    if (!v->is_constant())
      fail_user(
          "{}: input '{}' must be a compile-time constant or computed from the input "
          "shapes (it is computed at run time, and a run-time value would make the output "
          "shape data-dependent){}",
          n.describe(), what, graph_input_hint(v));
    for (int64_t i = 0; i < v->constant->num_elements(); ++i)
      out.push_back(graph::SymExpr(v->constant->get_i64(i)));
    return out;
  }
  if (!n.attrs.has(attr)) return std::nullopt;
  for (int64_t x : n.attrs.get_ints(attr)) out.push_back(graph::SymExpr(x));
  return out;
}

double approx_elements(const TensorType& t) {
  double n = 1;
  for (const Dim& d : t.shape)
    if (d.is_static()) n *= double(d.value);
  return n;
}

void require_same_dtype(const Node& n, const TensorType& a, const TensorType& b, const char* what_a,
                        const char* what_b) {
  if (a.dtype != b.dtype)
    fail_user("{}: inputs '{}' ({}) and '{}' ({}) must have the same dtype", n.describe(), what_a,
              graph::dtype_name(a.dtype), what_b, graph::dtype_name(b.dtype));
}

void require_rank_at_least(const Node& n, const TensorType& t, int rank, const char* what) {
  if (t.rank() < rank)
    fail_user("{}: input '{}' must have rank >= {}, got {}", n.describe(), what, rank, t.str());
}

}  // namespace ingot::ops::detail
