// Reductions over `axes` (empty = all unless noop_with_empty_axes): ReduceMean, ReduceSum,
// ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum,
// ReduceLogSumExp.
#include <algorithm>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

// Axes given by the model's caller (a graph input of static length k, read at run time): the
// output has rank x.rank() (keepdims) or x.rank() - k, its dims value symbols.
std::vector<TensorType> infer_reduce_value_axes(Node& n) {
  const TensorType& x = input_type(n, 0, "data");
  const TensorType& a = input_type(n, 1, "axes");
  if (a.rank() != 1 || !a.is_static() || (a.dtype != DType::kI64 && a.dtype != DType::kI32))
    fail_user("{}: input 'axes' must be a 1-D int64 tensor, got {}", n.describe(), a.str());
  const int64_t k = a.shape[0].value;
  if (k > x.rank()) fail_user("{}: {} axes for an input of rank {}", n.describe(), k, x.rank());
  bool keepdims = n.attrs.get_int("keepdims", 1) != 0;
  n.attrs.set("keepdims", int64_t(keepdims));
  n.attrs.set("noop_with_empty_axes", n.attrs.get_int("noop_with_empty_axes", 0) != 0 ? 1 : 0);
  n.attrs.erase("axes");
  TensorType out{x.dtype, {}};
  for (int64_t i = 0; i < (keepdims ? x.rank() : x.rank() - k); ++i)
    out.shape.push_back(value_dim(n, 0, int(i)));
  return {out};
}

std::vector<TensorType> infer_reduce(Node& n) {
  if (n.inputs.size() > 1 && is_runtime_value(n.inputs[1])) {
    if (n.inputs[1]->type.num_elements() != 0) return infer_reduce_value_axes(n);
    n.inputs.pop_back();  // no axes: known now
    n.attrs.set("axes", std::vector<int64_t>{});
  }
  const TensorType& x = input_type(n, 0, "data");
  std::vector<int64_t> axes = normalize_axes(n, n.attrs.get_ints("axes"), x.rank(), "axes");
  std::sort(axes.begin(), axes.end());
  bool keepdims = n.attrs.get_int("keepdims", 1) != 0;
  bool noop = n.attrs.get_int("noop_with_empty_axes", 0) != 0;
  n.attrs.set("axes", axes);
  n.attrs.set("keepdims", int64_t(keepdims));
  n.attrs.set("noop_with_empty_axes", int64_t(noop));
  if (axes.empty() && noop) return {x};
  TensorType out{x.dtype, {}};
  for (int64_t i = 0; i < x.rank(); ++i) {
    bool reduced = axes.empty() || std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced)
      out.shape.push_back(x.shape[i]);
    else if (keepdims)
      out.shape.push_back(Dim::fixed(1));
  }
  return {out};
}

double reduce_flops(const Node& n) {
  return approx_elements(n.inputs[0]->type);
}

OpInfo reduce(OpKind k, const char* name) {
  OpInfo i{k,
           name,
           PatternKind::kReduction,
           {{"axes", AttrType::kInts},
            {"keepdims", AttrType::kInt},
            {"noop_with_empty_axes", AttrType::kInt}}};
  i.max_inputs = 2;  // axes, until type inference moves it into the attribute
  i.const_inputs = {{1, "axes", "axes", false, true}};
  i.infer_fn = infer_reduce;
  i.flops_fn = reduce_flops;
  return i;
}

}  // namespace

void add_reduction_ops(std::vector<OpInfo>& t) {
  t.push_back(reduce(OpKind::ReduceMean, "ReduceMean"));
  t.push_back(reduce(OpKind::ReduceSum, "ReduceSum"));
  t.push_back(reduce(OpKind::ReduceMax, "ReduceMax"));
  t.push_back(reduce(OpKind::ReduceMin, "ReduceMin"));
  t.push_back(reduce(OpKind::ReduceProd, "ReduceProd"));
  t.push_back(reduce(OpKind::ReduceL1, "ReduceL1"));
  t.push_back(reduce(OpKind::ReduceL2, "ReduceL2"));
  t.push_back(reduce(OpKind::ReduceSumSquare, "ReduceSumSquare"));
  t.push_back(reduce(OpKind::ReduceLogSum, "ReduceLogSum"));
  t.push_back(reduce(OpKind::ReduceLogSumExp, "ReduceLogSumExp"));
}

}  // namespace ingot::ops::detail
