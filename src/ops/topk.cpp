// TopK: the k largest (or smallest) elements along an axis and their int64 indices, sorted,
// ties in index order. k decides the output shape, so it must be a compile-time constant.
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_topk(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 1, "X");
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", -1), x.rank(), "axis");
  const bool value_k = n.inputs.size() > 1 && is_runtime_value(n.inputs[1]);  // the caller's K
  if (value_k) {
    const TensorType& kt = n.inputs[1]->type;
    if (kt.dtype != DType::kI64 || !kt.is_static() || kt.num_elements() != 1)
      fail_user("{}: input 'K' must be an int64 tensor of one element, got {}", n.describe(),
                kt.str());
  } else if (!n.attrs.has("k")) {
    fail_user("{}: input 'K' is missing", n.describe());
  }
  int64_t k = n.attrs.get_int("k", 0);
  const Dim& d = x.shape[size_t(axis)];
  if (!d.is_static())
    fail_user("{}: cannot take the top k of symbolic dim '{}' (axis {})", n.describe(), d.str(),
              axis);
  if (!value_k && (k < 0 || k > d.value))
    fail_user("{}: k = {} is out of range for axis {} of size {}", n.describe(), k, axis, d.value);
  if (x.dtype == DType::kBool) fail_user("{}: input 'X' must be numeric, got bool", n.describe());
  int64_t largest = n.attrs.get_int("largest", 1), sorted = n.attrs.get_int("sorted", 1);
  if ((largest != 0 && largest != 1) || (sorted != 0 && sorted != 1))
    fail_user("{}: attributes 'largest' and 'sorted' must be 0 or 1", n.describe());
  n.attrs.set("axis", axis);
  n.attrs.set("largest", largest);
  n.attrs.set("sorted", sorted);
  TensorType values = x;
  values.shape[size_t(axis)] = value_k ? value_dim(n, 0, int(axis)) : Dim::fixed(k);
  TensorType indices = values;
  indices.dtype = DType::kI64;
  return {values, indices};
}

// A comparison per input element for each of the k outputs (the rule selects k times).
double topk_flops(const Node& n) {
  return double(n.attrs.get_int("k", 1)) * approx_elements(n.inputs.at(0)->type);
}

}  // namespace

void add_topk_ops(std::vector<OpInfo>& t) {
  OpInfo tk{OpKind::TopK,
            "TopK",
            PatternKind::kOpaque,
            {{"axis", AttrType::kInt},
             {"k", AttrType::kInt},
             {"largest", AttrType::kInt},
             {"sorted", AttrType::kInt}}};
  tk.min_inputs = 1;
  tk.max_inputs = 2;  // X, then K until type inference resolves it
  tk.num_outputs = 2;
  tk.const_inputs = {{1, "K", "k", false, /*runtime=*/true}};
  tk.infer_fn = infer_topk;
  tk.flops_fn = topk_flops;
  t.push_back(tk);
}

}  // namespace ingot::ops::detail
