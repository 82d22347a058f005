// Shape-changing ops that keep the data order or permute it: Flatten, Reshape, Transpose,
// Squeeze, Unsqueeze, and Shape (which reads only the input's shape).
#include <algorithm>
#include <set>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

Dim product_or_derived(const Node& n, const std::vector<Dim>& dims, int axis) {
  Dim d = dim_product(dims);
  return d.is_static() || !d.symbol.empty() ? d : derived_dim(n, 0, axis);
}

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
  return {TensorType{x.dtype, {product_or_derived(n, outer, 0), product_or_derived(n, inner, 1)}}};
}

// The size of the -1 entry of a Reshape: input elements divided by the known output dims,
// cancelling symbols that appear on both sides.
Dim infer_minus_one(const Node& n, const std::vector<Dim>& in, const std::vector<Dim>& out,
                    int index) {
  int64_t p_in = 1, p_out = 1;
  std::multiset<std::string> syms;
  for (const Dim& d : in) d.is_static() ? void(p_in *= d.value) : void(syms.insert(d.symbol));
  for (size_t i = 0; i < out.size(); ++i) {
    if (int(i) == index) continue;
    if (out[i].is_static()) {
      p_out *= out[i].value;
    } else {
      auto it = syms.find(out[i].symbol);
      if (it == syms.end()) return derived_dim(n, 0, index);
      syms.erase(it);
    }
  }
  if (p_out == 0) fail_user("{}: cannot infer the -1 dim of a shape with a zero dim", n.describe());
  if (syms.empty()) {
    if (p_in % p_out != 0)
      fail_user("{}: cannot reshape {} to {}: {} elements are not divisible by {}", n.describe(),
                shape_str(in), shape_str(out), p_in, p_out);
    return Dim::fixed(p_in / p_out);
  }
  if (syms.size() == 1 && p_in == p_out) return Dim::named(*syms.begin());
  return derived_dim(n, 0, index);
}

std::vector<TensorType> infer_reshape(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  if (!has_input(n, 1) || !n.inputs[1]->is_constant())
    fail_user("{}: input 'shape' must be a compile-time constant{}", n.describe(),
              graph_input_hint(has_input(n, 1) ? n.inputs[1] : nullptr));
  const graph::Tensor& s = *n.inputs[1]->constant;
  if (s.shape().size() != 1 || (s.dtype() != DType::kI64 && s.dtype() != DType::kI32))
    fail_user("{}: input 'shape' must be a 1-D int64 tensor, got {}", n.describe(), s.type().str());
  bool allowzero = n.attrs.get_int("allowzero", 0) != 0;
  n.attrs.set("allowzero", int64_t(allowzero));
  std::vector<Dim> out;
  int minus_one = -1;
  for (int64_t i = 0; i < s.num_elements(); ++i) {
    int64_t v = s.get_i64(i);
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

std::vector<TensorType> infer_squeeze(Node& n) {
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
  OpInfo unsqueeze = shape_op(OpKind::Unsqueeze, "Unsqueeze", inj,
                              {{"axes", AttrType::kInts, true}}, infer_unsqueeze);
  for (OpInfo* i : {&squeeze, &unsqueeze}) {
    i->max_inputs = 2;  // axes, until type inference moves it into the attribute
    i->const_inputs = {{1, "axes", "axes"}};
  }
  t.push_back(squeeze);
  t.push_back(unsqueeze);
  t.push_back(shape_op(OpKind::Shape, "Shape", PatternKind::kOpaque,
                       {{"start", AttrType::kInt}, {"end", AttrType::kInt}}, infer_shape));
}

}  // namespace ingot::ops::detail
