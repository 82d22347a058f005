// Index-mapping data-movement ops: Slice (starts/ends/axes/steps), Expand (broadcast to a
// shape) and Tile (repeats). Their shape-deciding values are attributes (docs/graph-forms.md).
#include <algorithm>
#include <limits>
#include <string>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

constexpr int64_t kSliceToEnd = std::numeric_limits<int64_t>::max();

// The length of a slice [s, e) with a positive step of a symbolic dim d, for the forms exports
// write: from a constant start (negative: from the end) to the end or to a constant
// non-negative end. Stored unnormalised (a negative start counts from the end at run time).
Dim slice_symbolic_dim(const Node& n, const Dim& d, int64_t axis, int64_t s, int64_t e,
                       int64_t step) {
  using graph::SymExpr;
  const SymExpr dim = d.sym();
  const bool to_end = e >= kSliceToEnd / 2;
  SymExpr len;
  if (step != 1 || (!to_end && (e < 0 || s < 0))) {
    fail_user(
        "{}: slice [{}:{}:{}] of symbolic dim '{}' (axis {}) is not supported; bind the dim "
        "with --input-shapes",
        n.describe(), s, to_end ? std::string("") : std::to_string(e), step, d.str(), axis);
  } else if (s < 0) {
    len = SymExpr::min(dim, SymExpr(-s));  // the last -s elements
  } else {
    SymExpr end = to_end ? dim : SymExpr::min(dim, SymExpr(e));
    len = SymExpr::max(end - SymExpr(s), SymExpr(0));
  }
  return Dim::of(len);
}

// Normalises to one entry per input dim: `axes` = 0..rank-1, `starts` the first index read,
// `steps`, and `ends` the clamped end (the output dim is ceil((end - start) / step), >= 0).
// Slice with starts, ends, axes or steps given by the caller (graph inputs, read at run time):
// every dim the slice may touch is a value symbol (all of them when the axes come at run time).
std::vector<TensorType> infer_slice_values(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  int64_t k = -1;
  const char* names[] = {"starts", "ends", "axes", "steps"};
  for (int slot = 1; slot <= 4; ++slot) {
    int64_t len = -1;
    if (slot < int(n.inputs.size()) && n.inputs[size_t(slot)] != nullptr) {
      const TensorType& t = n.inputs[size_t(slot)]->type;
      if (!is_runtime_value(n.inputs[size_t(slot)]) || t.rank() != 1 || !t.is_static() ||
          (t.dtype != DType::kI64 && t.dtype != DType::kI32))
        fail_user("{}: input '{}' must be a 1-D int64 graph input or constant, got {}",
                  n.describe(), names[slot - 1], t.str());
      len = t.shape[0].value;
    } else if (n.attrs.has(names[slot - 1])) {
      len = int64_t(n.attrs.get_ints(names[slot - 1]).size());
    }
    if (len >= 0 && k >= 0 && len != k)
      fail_user("{}: 'starts', 'ends', 'axes' and 'steps' have different lengths", n.describe());
    if (len >= 0) k = len;
  }
  if (k > x.rank())
    fail_user("{}: {} axes sliced for an input of rank {}", n.describe(), k, x.rank());
  std::vector<bool> touched(size_t(x.rank()), false);
  const bool runtime_axes = n.inputs.size() > 3 && n.inputs[3] != nullptr;
  if (runtime_axes) {
    touched.assign(touched.size(), true);
  } else if (n.attrs.has("axes")) {
    for (int64_t a : normalize_axes(n, n.attrs.get_ints("axes"), x.rank(), "axes"))
      touched[size_t(a)] = true;
  } else {
    for (int64_t a = 0; a < k; ++a) touched[size_t(a)] = true;
  }
  TensorType out = x;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (touched[size_t(d)]) out.shape[size_t(d)] = value_dim(n, 0, int(d));
  return {out};
}

bool slice_reads_values(const Node& n) {
  for (size_t slot = 1; slot <= 4 && slot < n.inputs.size(); ++slot)
    if (is_runtime_value(n.inputs[slot])) return true;
  return false;
}

std::vector<TensorType> infer_slice(Node& n) {
  if (slice_reads_values(n)) return infer_slice_values(n);
  const TensorType& x = input_type(n, 0, "data");
  int64_t r = x.rank();
  std::vector<int64_t> starts = n.attrs.get_ints("starts"), ends = n.attrs.get_ints("ends");
  if (starts.size() != ends.size())
    fail_user("{}: 'starts' has {} values but 'ends' has {}", n.describe(), starts.size(),
              ends.size());
  std::vector<int64_t> axes;
  if (n.attrs.has("axes")) {
    axes = normalize_axes(n, n.attrs.get_ints("axes"), r, "axes");
  } else {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  }
  std::vector<int64_t> steps = n.attrs.get_ints("steps", std::vector<int64_t>(starts.size(), 1));
  if (axes.size() != starts.size() || steps.size() != starts.size())
    fail_user("{}: 'starts', 'ends', 'axes' and 'steps' have different lengths ({}, {}, {}, {})",
              n.describe(), starts.size(), ends.size(), axes.size(), steps.size());
  if (int64_t(axes.size()) > r)
    fail_user("{}: {} axes sliced for an input of rank {}", n.describe(), axes.size(), r);
  std::vector<int64_t> fs(size_t(r), 0), fe(size_t(r), 0), fst(size_t(r), 1);
  TensorType out = x;
  std::vector<bool> sliced(size_t(r), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i], step = steps[i];
    sliced[size_t(a)] = true;
    if (step == 0) fail_user("{}: 'steps' has a 0 for axis {}", n.describe(), a);
    const Dim& d = x.shape[size_t(a)];
    if (!d.is_static()) {
      out.shape[size_t(a)] = slice_symbolic_dim(n, d, a, starts[i], ends[i], step);
      fs[size_t(a)] = starts[i];
      fe[size_t(a)] = ends[i];
      fst[size_t(a)] = step;
      continue;
    }
    int64_t dim = d.value, s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, -1, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t len = step > 0 ? (e - s + step - 1) / step : (s - e - step - 1) / -step;
    len = std::max<int64_t>(len, 0);
    // Stored so that inference is idempotent: an empty slice is [0:0], and the end -1 of a
    // negative step (before index 0) is written as -1 - dim so it does not read as "last".
    fs[size_t(a)] = len > 0 ? s : 0;
    fe[size_t(a)] = len == 0 ? 0 : e < 0 ? e - dim : e;
    fst[size_t(a)] = step;
    out.shape[size_t(a)] = Dim::fixed(len);
  }
  std::vector<int64_t> all_axes;
  for (int64_t a = 0; a < r; ++a) {
    all_axes.push_back(a);
    if (!sliced[size_t(a)])
      fe[size_t(a)] = x.shape[size_t(a)].is_static() ? x.shape[size_t(a)].value : kSliceToEnd;
  }
  n.attrs.set("starts", fs);
  n.attrs.set("ends", fe);
  n.attrs.set("axes", all_axes);
  n.attrs.set("steps", fst);
  return {out};
}

std::vector<TensorType> infer_expand(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (n.inputs.size() > 1 && is_runtime_value(n.inputs[1])) {  // the caller's shape: value dims
    const TensorType& s = n.inputs[1]->type;
    if (s.rank() != 1 || !s.is_static() || (s.dtype != DType::kI64 && s.dtype != DType::kI32))
      fail_user("{}: input 'shape' must be a 1-D int64 tensor, got {}", n.describe(), s.str());
    n.attrs.erase("shape");
    TensorType out{x.dtype, {}};
    for (int64_t i = 0; i < std::max<int64_t>(x.rank(), s.shape[0].value); ++i)
      out.shape.push_back(value_dim(n, 0, int(i)));
    return {out};
  }
  auto shape = shape_operand(n, 1, "shape", "shape");
  if (!shape) fail_user("{}: input 'shape' is missing", n.describe());
  std::vector<Dim> target;
  for (const graph::SymExpr& d : *shape) {
    if (d.as_constant() && *d.as_constant() < 0)
      fail_user("{}: input 'shape' has a negative dim {}", n.describe(), d.str());
    target.push_back(Dim::of(d));
  }
  TensorType out{x.dtype, broadcast_shapes(n, x.shape, target)};
  std::vector<int64_t> full;
  for (const Dim& d : out.shape) full.push_back(d.is_static() ? d.value : -1);
  n.attrs.set("shape", full);
  return {out};
}

std::vector<TensorType> infer_tile(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (n.inputs.size() > 1 && is_runtime_value(n.inputs[1])) {  // the caller's repeats
    const TensorType& rt = n.inputs[1]->type;
    if (rt.rank() != 1 || !rt.is_static() || rt.shape[0].value != x.rank() ||
        rt.dtype != DType::kI64)
      fail_user("{}: input 'repeats' must be an int64 tensor of {} values, got {}", n.describe(),
                x.rank(), rt.str());
    n.attrs.erase("repeats");
    TensorType out{x.dtype, {}};
    for (int64_t i = 0; i < x.rank(); ++i) out.shape.push_back(value_dim(n, 0, int(i)));
    return {out};
  }
  std::vector<int64_t> reps = n.attrs.get_ints("repeats");
  if (int64_t(reps.size()) != x.rank())
    fail_user("{}: input 'repeats' has {} values for an input of rank {}", n.describe(),
              reps.size(), x.rank());
  TensorType out = x;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (reps[size_t(i)] < 0)
      fail_user("{}: input 'repeats' has a negative value {}", n.describe(), reps[size_t(i)]);
    const Dim& d = x.shape[size_t(i)];
    if (reps[size_t(i)] == 1) continue;
    out.shape[size_t(i)] = Dim::of(d.sym() * reps[size_t(i)]);
  }
  return {out};
}

}  // namespace

void add_slice_tile_ops(std::vector<OpInfo>& t) {
  OpInfo slice = make_data_movement_op(OpKind::Slice, "Slice",
                                       {{"starts", AttrType::kInts},
                                        {"ends", AttrType::kInts},
                                        {"axes", AttrType::kInts},
                                        {"steps", AttrType::kInts}},
                                       infer_slice);
  slice.max_inputs = 5;  // starts, ends, axes, steps until type inference resolves them
  slice.const_inputs = {{1, "starts", "starts", false, true},
                        {2, "ends", "ends", false, true},
                        {3, "axes", "axes", false, true},
                        {4, "steps", "steps", false, true}};
  t.push_back(slice);

  OpInfo expand =
      make_data_movement_op(OpKind::Expand, "Expand", {{"shape", AttrType::kInts}}, infer_expand);
  expand.max_inputs = 2;
  expand.const_inputs = {{1, "shape", "shape", /*symbolic=*/true, /*runtime=*/true}};
  t.push_back(expand);

  OpInfo tile =
      make_data_movement_op(OpKind::Tile, "Tile", {{"repeats", AttrType::kInts}}, infer_tile);
  tile.max_inputs = 2;
  tile.const_inputs = {{1, "repeats", "repeats", false, /*runtime=*/true}};
  t.push_back(tile);
}

}  // namespace ingot::ops::detail
