// Data-movement ops: Concat, Split, Pad, CenterCropPad and Gather.
#include <numeric>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_concat(Node& n) {
  const TensorType& first = input_type(n, 0, "inputs[0]");
  if (first.rank() == 0) fail_user("{}: cannot concatenate scalars", n.describe());
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), first.rank(), "axis");
  n.attrs.set("axis", axis);
  TensorType out = first;
  std::vector<Dim> along{first.shape[axis]};
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    std::string what = fmt::format("inputs[{}]", i);
    const TensorType& t = input_type(n, int(i), what.c_str());
    require_same_dtype(n, first, t, "inputs[0]", what.c_str());
    if (t.rank() != first.rank())
      fail_user("{}: inputs have different ranks ({} and {})", n.describe(), first.str(), t.str());
    for (int64_t d = 0; d < t.rank(); ++d) {
      if (d == axis) continue;
      if (t.shape[d].is_static() && out.shape[d].is_static() &&
          t.shape[d].value != out.shape[d].value)
        fail_user("{}: inputs {} and {} differ in dim {} (concat axis is {})", n.describe(),
                  first.str(), t.str(), d, axis);
      out.shape[d] = merge_dims(n, out.shape[d], t.shape[d], "input dims");
    }
    along.push_back(t.shape[axis]);
  }
  SymExpr sum(0);
  for (const Dim& d : along) sum = sum + d.sym();
  out.shape[axis] = Dim::of(sum);
  return {out};
}

std::vector<TensorType> infer_split(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), x.rank(), "axis");
  n.attrs.set("axis", axis);
  const Dim& d = x.shape[axis];
  int64_t k = int64_t(n.outputs.size());
  if (n.inputs.size() > 1 && is_runtime_value(n.inputs[1])) {  // the caller's sizes
    const TensorType& st = n.inputs[1]->type;
    if (st.rank() != 1 || !st.is_static() || st.shape[0].value != k || st.dtype != DType::kI64)
      fail_user("{}: input 'split' must be an int64 tensor of {} sizes, got {}", n.describe(), k,
                st.str());
    n.attrs.erase("split");
    std::vector<TensorType> outs;
    for (int64_t i = 0; i < k; ++i) {
      TensorType t = x;
      t.shape[axis] = value_dim(n, int(i), int(axis));
      outs.push_back(t);
    }
    return outs;
  }
  std::vector<int64_t> split = n.attrs.get_ints("split");
  if (!n.attrs.has("split")) {
    if (!d.is_static())
      fail_user("{}: cannot split symbolic dim '{}' without 'split' sizes", n.describe(), d.str());
    int64_t chunk = (d.value + k - 1) / k;  // the last chunk may be smaller (opset 18)
    if (chunk * (k - 1) >= d.value && k > 1)
      fail_user("{}: cannot split dim of size {} into {} outputs", n.describe(), d.value, k);
    split.assign(size_t(k), chunk);
    split.back() = d.value - chunk * (k - 1);
  }
  if (int64_t(split.size()) != k)
    fail_user("{}: attribute 'split' has {} sizes for {} outputs", n.describe(), split.size(), k);
  for (int64_t s : split)
    if (s < 0) fail_user("{}: attribute 'split' has negative size {}", n.describe(), s);
  int64_t total = std::accumulate(split.begin(), split.end(), int64_t(0));
  if (d.is_static() && total != d.value)
    fail_user("{}: split sizes sum to {} but dim {} of {} is {}", n.describe(), total, axis,
              x.str(), d.value);
  n.attrs.set("split", split);
  std::vector<TensorType> outs;
  for (int64_t s : split) {
    TensorType t = x;
    t.shape[axis] = Dim::fixed(s);
    outs.push_back(t);
  }
  return outs;
}

// Pad's mode (one of the four) and constant value, made explicit.
void normalize_pad_attrs(Node& n) {
  std::string mode = n.attrs.get_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    fail_user(
        "{}: attribute 'mode' has unsupported value \"{}\" (valid: constant, reflect, edge, wrap)",
        n.describe(), mode);
  n.attrs.set("mode", mode);
  n.attrs.set("value", n.attrs.get_float("value", 0.0));
}

// Pad whose pads or axes the caller gives: every output dim, and the pads before it, are value
// symbols the artifact computes from them before each run (ops/value_symbols.h).
std::vector<TensorType> infer_pad_values(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  auto input = [&](size_t slot) -> const graph::Value* {
    return slot < n.inputs.size() ? n.inputs[slot] : nullptr;
  };
  auto check_ints = [&](const graph::Value* v, const char* what) -> int64_t {
    const bool int_type = v->type.dtype == DType::kI64 || v->type.dtype == DType::kI32;
    if (!int_type || v->type.rank() != 1 || !v->type.is_static())
      fail_user("{}: input '{}' must be a 1-D int32 or int64 tensor, got {}", n.describe(), what,
                v->type.str());
    return v->type.shape[0].value;
  };
  int64_t axes = x.rank();
  if (const graph::Value* a = input(3)) {
    axes = check_ints(a, "axes");
  } else if (n.attrs.has("axes")) {
    axes = int64_t(n.attrs.get_ints("axes").size());
  }
  const int64_t pads =
      input(1) ? check_ints(input(1), "pads") : int64_t(n.attrs.get_ints("pads").size());
  if (pads != 2 * axes)
    fail_user("{}: input 'pads' has {} values; 2 per padded axis ({}) are needed", n.describe(),
              pads, axes);
  if (const graph::Value* v = input(2);
      v != nullptr &&
      (v->type.dtype != x.dtype || !v->type.is_static() || v->type.num_elements() != 1))
    fail_user("{}: input 'constant_value' must be one {} value, got {}", n.describe(),
              graph::dtype_name(x.dtype), v->type.str());
  normalize_pad_attrs(n);
  TensorType out = x;
  for (int a = 0; a < x.rank(); ++a) out.shape[size_t(a)] = value_dim(n, 0, a);
  return {out};
}

std::vector<TensorType> infer_pad(Node& n) {
  if (pad_reads_values(n)) return infer_pad_values(n);
  const TensorType& x = input_type(n, 0, "data");
  if (!n.attrs.has("pads")) fail_user("{}: input 'pads' is missing", n.describe());
  std::vector<int64_t> pads = n.attrs.get_ints("pads");
  if (n.attrs.has("axes")) {  // opset 18: pads for the listed axes only
    std::vector<int64_t> axes = normalize_axes(n, n.attrs.get_ints("axes"), x.rank(), "axes");
    if (pads.size() != 2 * axes.size())
      fail_user("{}: attribute 'pads' has {} values; 2 per axis in 'axes' ({}) are needed",
                n.describe(), pads.size(), axes.size());
    std::vector<int64_t> full(size_t(2 * x.rank()), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      full[size_t(axes[i])] = pads[i];
      full[size_t(axes[i] + x.rank())] = pads[i + axes.size()];
    }
    pads = full;
    n.attrs.erase("axes");
    n.attrs.set("pads", pads);
  }
  if (int64_t(pads.size()) != 2 * x.rank())
    fail_user("{}: attribute 'pads' has {} values, expected {} for input {}", n.describe(),
              pads.size(), 2 * x.rank(), x.str());
  normalize_pad_attrs(n);
  TensorType out = x;
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t extra = pads[i] + pads[x.rank() + i];
    if (!x.shape[i].is_static()) {
      // A negative pad of a symbolic dim is a crop; the run time checks it leaves >= 0.
      out.shape[i] = Dim::of(x.shape[i].sym() + extra);
      continue;
    }
    if (x.shape[i].value + extra < 0)
      fail_user("{}: pads {} make dim {} of {} negative", n.describe(), extra, i, x.str());
    out.shape[i] = Dim::fixed(x.shape[i].value + extra);
  }
  return {out};
}

// The dims listed in `axes` (default: all) become `shape`'s values; `axes` is normalised.
std::vector<TensorType> infer_center_crop_pad(Node& n) {
  const TensorType& x = input_type(n, 0, "input_data");
  std::vector<int64_t> all(size_t(x.rank()));
  for (int64_t i = 0; i < x.rank(); ++i) all[size_t(i)] = i;
  std::vector<int64_t> axes =
      n.attrs.has("axes") ? normalize_axes(n, n.attrs.get_ints("axes", {}), x.rank(), "axes") : all;
  n.attrs.set("axes", axes);
  if (pad_reads_values(n)) {  // the caller's shape: the dims it names are value symbols
    const TensorType& s = n.inputs[1]->type;
    if ((s.dtype != DType::kI64 && s.dtype != DType::kI32) || s.rank() != 1 || !s.is_static() ||
        s.shape[0].value != int64_t(axes.size()))
      fail_user("{}: input 'shape' must be a 1-D integer tensor of {} values, got {}", n.describe(),
                axes.size(), s.str());
    TensorType out = x;
    for (int a = 0; a < x.rank(); ++a) out.shape[size_t(a)] = value_dim(n, 0, a);
    return {out};
  }
  if (!n.attrs.has("shape")) fail_user("{}: input 'shape' is missing", n.describe());
  std::vector<int64_t> shape = n.attrs.get_ints("shape", {});
  if (shape.size() != axes.size())
    fail_user("{}: input 'shape' has {} values for {} axes", n.describe(), shape.size(),
              axes.size());
  TensorType out = x;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (shape[k] < 0)
      fail_user("{}: input 'shape' has a negative value {}", n.describe(), shape[k]);
    out.shape[size_t(axes[k])] = Dim::fixed(shape[k]);
  }
  return {out};
}

std::vector<TensorType> infer_gather(Node& n) {
  const TensorType& data = input_type(n, 0, "data");
  const TensorType& idx = input_type(n, 1, "indices");
  require_rank_at_least(n, data, 1, "data");
  if (idx.dtype != DType::kI64 && idx.dtype != DType::kI32)
    fail_user("{}: input 'indices' must be int32 or int64, got {}", n.describe(), idx.str());
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), data.rank(), "axis");
  n.attrs.set("axis", axis);
  TensorType out{data.dtype, {}};
  out.shape.insert(out.shape.end(), data.shape.begin(), data.shape.begin() + axis);
  out.shape.insert(out.shape.end(), idx.shape.begin(), idx.shape.end());
  out.shape.insert(out.shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  return {out};
}

}  // namespace

void add_data_movement_ops(std::vector<OpInfo>& t) {
  const PatternKind inj = PatternKind::kInjective;
  OpInfo concat{OpKind::Concat, "Concat", inj, {{"axis", AttrType::kInt, true}}};
  concat.max_inputs = -1;
  concat.infer_fn = infer_concat;
  concat.flops_fn = no_flops;
  t.push_back(concat);

  OpInfo split{OpKind::Split, "Split", inj, {{"axis", AttrType::kInt}, {"split", AttrType::kInts}}};
  split.num_outputs = -1;
  split.max_inputs = 2;  // split sizes, until type inference moves them into the attribute
  split.infer_fn = infer_split;
  split.const_inputs = {{1, "split", "split", false, /*runtime=*/true}};
  split.flops_fn = no_flops;
  t.push_back(split);

  OpInfo pad{OpKind::Pad,
             "Pad",
             inj,
             {{"pads", AttrType::kInts},  // or the run-time input `pads`
              {"mode", AttrType::kString},
              {"value", AttrType::kFloat},
              {"axes", AttrType::kInts}}};
  pad.max_inputs = 4;  // pads, constant_value, axes until type inference resolves them
  // (The caller's pads and axes decide value symbols; its constant_value is read by the kernel.)
  pad.const_inputs = {{1, "pads", "pads", false, /*runtime=*/true},
                      {2, "constant_value", "value", false, /*runtime=*/true},
                      {3, "axes", "axes", false, /*runtime=*/true}};
  pad.infer_fn = infer_pad;
  pad.flops_fn = no_flops;
  t.push_back(pad);

  OpInfo ccp{OpKind::CenterCropPad,
             "CenterCropPad",
             inj,
             {{"shape", AttrType::kInts}, {"axes", AttrType::kInts}}};  // or the input `shape`
  ccp.max_inputs = 2;  // shape, until type inference moves it into the attribute
  ccp.const_inputs = {{1, "shape", "shape", false, /*runtime=*/true}};
  ccp.infer_fn = infer_center_crop_pad;
  ccp.flops_fn = no_flops;
  t.push_back(ccp);

  OpInfo gather{OpKind::Gather, "Gather", inj, {{"axis", AttrType::kInt}}};
  gather.min_inputs = gather.max_inputs = 2;
  gather.infer_fn = infer_gather;
  gather.flops_fn = no_flops;
  t.push_back(gather);
}

}  // namespace ingot::ops::detail
