// Shape-changing ops that keep the data order or permute it: Flatten, Reshape, Transpose,
// Squeeze, Unsqueeze, and Shape (which reads only the input's shape).
#include <algorithm>
#include <optional>
#include <set>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_flatten(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  int64_t axis = n.attrs.get_int("axis", 1);
  if (axis < -x.rank() || axis > x.rank())
    fail_user("{}: attribute 'axis' = {} is out of range for rank {}", n.describe(), axis,
              x.rank());
  if (axis < 0) axis += x.rank();
  n.attrs.set("axis", axis);
  std::vector<Dim> outer(x.shape.begin(), x.shape.begin() + axis);
  std::vector<Dim> inner(x.shape.begin() + axis, x.shape.end());
  return {TensorType{x.dtype, {dim_product(outer), dim_product(inner)}}};
}

// The size of the -1 entry of a Reshape: input elements divided by the known output dims, exact
// as polynomials (symbols on both sides cancel); a fresh symbol when it does not divide.
Dim infer_minus_one(const Node& n, const std::vector<Dim>& in, const std::vector<Dim>& out,
                    int index) {
  std::vector<Dim> known = out;
  known.erase(known.begin() + index);
  SymExpr total = dim_product(in).sym(), part = dim_product(known).sym();
  if (part == SymExpr(0))
    fail_user("{}: cannot infer the -1 dim of a shape with a zero dim", n.describe());
  if (std::optional<SymExpr> q = total.divide_exact(part)) return Dim::of(*q);
  if (total.is_constant() && part.is_constant())
    fail_user("{}: cannot reshape {} to {}: {} elements are not divisible by {}", n.describe(),
              shape_str(in), shape_str(out), total.str(), part.str());
  return derived_dim(n, 0, index);
}

std::vector<TensorType> infer_reshape(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  const TensorType& st = input_type(n, 1, "shape");
  if (is_runtime_value(n.inputs[1]) && st.rank() == 1 && st.is_static() &&
      (st.dtype == DType::kI64 || st.dtype == DType::kI32)) {
    // The caller's values decide every dim at run time (value symbols).
    n.attrs.set("allowzero", n.attrs.get_int("allowzero", 0) != 0 ? int64_t(1) : int64_t(0));
    TensorType out{x.dtype, {}};
    for (int64_t i = 0; i < st.shape[0].value; ++i) out.shape.push_back(value_dim(n, 0, int(i)));
    return {out};
  }
  if (!n.inputs[1]->is_constant() && n.inputs[1]->symbolic_value.empty())
    fail_user("{}: input 'shape' must be a compile-time constant{}", n.describe(),
              graph_input_hint(n.inputs[1]));
  if (st.rank() != 1 || (st.dtype != DType::kI64 && st.dtype != DType::kI32))
    fail_user("{}: input 'shape' must be a 1-D int64 tensor, got {}", n.describe(), st.str());
  const std::vector<graph::SymExpr> s = *shape_operand(n, 1, "", "shape");
  bool allowzero = n.attrs.get_int("allowzero", 0) != 0;
  n.attrs.set("allowzero", int64_t(allowzero));
  std::vector<Dim> out;
  int minus_one = -1;
  for (int64_t i = 0; i < int64_t(s.size()); ++i) {
    if (!s[size_t(i)].is_constant()) {  // an expression of the symbols: a dim, so >= 0
      out.push_back(Dim::of(s[size_t(i)]));
      continue;
    }
    int64_t v = *s[size_t(i)].as_constant();
    if (v == -1) {
      if (minus_one >= 0) fail_user("{}: shape has more than one -1", n.describe());
      minus_one = int(i);
      out.push_back(Dim::fixed(1));  // placeholder
    } else if (v == 0 && !allowzero) {
      if (i >= x.rank())
        fail_user("{}: shape entry {} is 0 but the input {} has no dim {}", n.describe(), i,
                  x.str(), i);
      out.push_back(x.shape[i]);
    } else if (v < 0) {
      fail_user("{}: shape entry {} has invalid value {}", n.describe(), i, v);
    } else {
      out.push_back(Dim::fixed(v));
    }
  }
  if (minus_one >= 0) {
    out[minus_one] = infer_minus_one(n, x.shape, out, minus_one);
  } else {
    Dim a = dim_product(x.shape), b = dim_product(out);
    if (a.is_static() && b.is_static() && a.value != b.value)
      fail_user("{}: cannot reshape {} ({} elements) to {} ({} elements)", n.describe(), x.str(),
                a.value, shape_str(out), b.value);
  }
  return {TensorType{x.dtype, out}};
}

std::vector<TensorType> infer_transpose(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  std::vector<int64_t> perm;
  if (n.attrs.has("perm")) {
    perm = normalize_axes(n, n.attrs.get_ints("perm"), x.rank(), "perm");
    if (int(perm.size()) != x.rank())
      fail_user("{}: attribute 'perm' has {} entries for an input of rank {}", n.describe(),
                perm.size(), x.rank());
  } else {
    for (int64_t i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  n.attrs.set("perm", perm);
  TensorType out{x.dtype, {}};
  for (int64_t p : perm) out.shape.push_back(x.shape[p]);
  return {out};
}

// Squeeze/Unsqueeze whose axes the caller gives (a graph input of static length k): the output
// rank is known (x's minus or plus k), its dims are value symbols. No axes: known now.
std::optional<std::vector<TensorType>> infer_value_axes(Node& n, int64_t sign) {
  if (n.inputs.size() < 2 || !is_runtime_value(n.inputs[1])) return std::nullopt;
  const TensorType& x = input_type(n, 0, "data");
  const TensorType& a = n.inputs[1]->type;
  if (a.rank() != 1 || !a.is_static() || (a.dtype != DType::kI64 && a.dtype != DType::kI32))
    fail_user("{}: input 'axes' must be a 1-D int64 tensor, got {}", n.describe(), a.str());
  if (a.shape[0].value == 0) {
    n.inputs.pop_back();
    n.attrs.set("axes", std::vector<int64_t>{});
    return std::nullopt;
  }
  const int64_t rank = x.rank() + sign * a.shape[0].value;
  if (rank < 0)
    fail_user("{}: {} axes for an input of rank {}", n.describe(), a.shape[0].value, x.rank());
  n.attrs.erase("axes");
  TensorType out{x.dtype, {}};
  for (int64_t i = 0; i < rank; ++i) out.shape.push_back(value_dim(n, 0, int(i)));
  return std::vector<TensorType>{out};
}

std::vector<TensorType> infer_squeeze(Node& n) {
  if (auto out = infer_value_axes(n, -1)) return *out;
  const TensorType& x = input_type(n, 0, "data");
  std::vector<int64_t> axes = normalize_axes(n, n.attrs.get_ints("axes"), x.rank(), "axes");
  if (!n.attrs.has("axes") || axes.empty()) {
    for (int64_t i = 0; i < x.rank(); ++i)
      if (x.shape[i] == Dim::fixed(1)) axes.push_back(i);
  }
  std::sort(axes.begin(), axes.end());
  for (int64_t a : axes)
    if (x.shape[a].is_static() && x.shape[a].value != 1)
      fail_user("{}: cannot squeeze axis {} of {}: its size is {}, not 1", n.describe(), a, x.str(),
                x.shape[a].value);
  n.attrs.set("axes", axes);
  TensorType out{x.dtype, {}};
  for (int64_t i = 0; i < x.rank(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i)) out.shape.push_back(x.shape[i]);
  return {out};
}

std::vector<TensorType> infer_unsqueeze(Node& n) {
  if (auto out = infer_value_axes(n, 1)) return *out;
  const TensorType& x = input_type(n, 0, "data");
  std::vector<int64_t> given = n.attrs.get_ints("axes");
  int64_t out_rank = x.rank() + int64_t(given.size());
  std::vector<int64_t> axes = normalize_axes(n, given, out_rank, "axes");
  std::sort(axes.begin(), axes.end());
  n.attrs.set("axes", axes);
  TensorType out{x.dtype, {}};
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (std::binary_search(axes.begin(), axes.end(), i))
      out.shape.push_back(Dim::fixed(1));
    else
      out.shape.push_back(x.shape[next++]);
  }
  return {out};
}

std::vector<TensorType> infer_shape(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  int64_t r = x.rank();
  auto clamp = [r](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t(0), r); };
  int64_t start = clamp(n.attrs.get_int("start", 0));
  int64_t end = clamp(n.attrs.get_int("end", r));
  n.attrs.set("start", start);
  n.attrs.set("end", end);
  return {TensorType{DType::kI64, {Dim::fixed(std::max<int64_t>(0, end - start))}}};
}

OpInfo shape_op(OpKind k, const char* name, PatternKind p, std::vector<AttrSpec> attrs,
                std::vector<TensorType> (*infer)(Node&)) {
  OpInfo i{k, name, p, std::move(attrs)};
  i.infer_fn = infer;
  i.flops_fn = no_flops;
  return i;
}

}  // namespace

void add_shape_ops(std::vector<OpInfo>& t) {
  const PatternKind inj = PatternKind::kInjective;
  t.push_back(shape_op(OpKind::Flatten, "Flatten", inj, {{"axis", AttrType::kInt}}, infer_flatten));
  OpInfo reshape =
      shape_op(OpKind::Reshape, "Reshape", inj, {{"allowzero", AttrType::kInt}}, infer_reshape);
  reshape.min_inputs = reshape.max_inputs = 2;
  t.push_back(reshape);
  t.push_back(
      shape_op(OpKind::Transpose, "Transpose", inj, {{"perm", AttrType::kInts}}, infer_transpose));
  OpInfo squeeze =
      shape_op(OpKind::Squeeze, "Squeeze", inj, {{"axes", AttrType::kInts}}, infer_squeeze);
  OpInfo unsqueeze =
      shape_op(OpKind::Unsqueeze, "Unsqueeze", inj, {{"axes", AttrType::kInts}}, infer_unsqueeze);
  for (OpInfo* i : {&squeeze, &unsqueeze}) {
    i->max_inputs = 2;  // axes, until type inference moves it into the attribute
    i->const_inputs = {{1, "axes", "axes", false, /*runtime=*/true}};
  }
  t.push_back(squeeze);
  t.push_back(unsqueeze);
  t.push_back(shape_op(OpKind::Shape, "Shape", PatternKind::kOpaque,
                       {{"start", AttrType::kInt}, {"end", AttrType::kInt}}, infer_shape));
}

}  // namespace ingot::ops::detail
