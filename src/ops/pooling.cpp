// Pooling: MaxPool (with the optional Indices output), AveragePool and LpPool (explicit window
// attributes, ceil_mode), GlobalAveragePool, GlobalMaxPool and MaxUnpool (MaxPool's partial
// inverse; output_shape from a constant input).
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_pool(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  std::vector<int64_t> kernel = n.attrs.get_ints("kernel_shape");
  for (int64_t k : kernel)
    if (k < 1) fail_user("{}: attribute 'kernel_shape' has invalid value {}", n.describe(), k);
  if (kernel.empty() || kernel.size() > 3)
    fail_user("{}: attribute 'kernel_shape' must have 1 to 3 values", n.describe());
  int64_t ceil_mode = n.attrs.get_int("ceil_mode", 0);
  bool with_indices = n.op == OpKind::MaxPool && n.outputs.size() == 2;
  if (n.op == OpKind::MaxPool) {
    if (n.outputs.size() > 2)
      fail_user("{}: expects 1 or 2 outputs, got {}", n.describe(), n.outputs.size());
    int64_t order = n.attrs.get_int("storage_order", 0);
    if (order != 0 && order != 1)
      fail_user("{}: attribute 'storage_order' must be 0 or 1, got {}", n.describe(), order);
    if (with_indices)
      n.attrs.set("storage_order", order);  // only the Indices output depends on it
    else
      n.attrs.erase("storage_order");
  } else if (n.op == OpKind::LpPool) {
    int64_t p = n.attrs.get_int("p", 2);
    if (p < 1) fail_user("{}: attribute 'p' must be positive, got {}", n.describe(), p);
    n.attrs.set("p", p);
  } else {
    n.attrs.set("count_include_pad", n.attrs.get_int("count_include_pad", 0));
  }
  std::vector<Dim> spatial = window_output_dims(n, x, kernel, ceil_mode != 0);
  n.attrs.set("ceil_mode", ceil_mode);
  TensorType out{x.dtype, {x.shape[0], x.shape[1]}};
  out.shape.insert(out.shape.end(), spatial.begin(), spatial.end());
  if (with_indices) return {out, TensorType{DType::kI64, out.shape}};
  return {out};
}

double pool_flops(const Node& n) {
  double k = 1;
  for (int64_t e : n.attrs.get_ints("kernel_shape")) k *= double(e);
  return k * approx_elements(n.outputs[0]->type);
}

std::vector<TensorType> infer_global_pool(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 3, "X");
  if (x.dtype == DType::kBool) fail_user("{}: input 'X' must be numeric, got bool", n.describe());
  TensorType out = x;
  for (int i = 2; i < x.rank(); ++i) out.shape[i] = Dim::fixed(1);
  return {out};
}

double global_pool_flops(const Node& n) {
  return approx_elements(n.inputs[0]->type);
}

// MaxUnpool: the unpooled spatial dims are (in - 1) * stride - (pad begin + pad end) + kernel;
// `output_shape` (when given) must be at least that large in every dim.
std::vector<TensorType> infer_max_unpool(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& idx = input_type(n, 1, "I");
  require_rank_at_least(n, x, 3, "X");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'X' must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  if (idx.dtype != DType::kI64)
    fail_user("{}: input 'I' must be int64, got {}", n.describe(), dtype_name(idx.dtype));
  if (idx.shape != x.shape)
    fail_user("{}: input 'I' {} must have the shape of X {}", n.describe(), idx.str(), x.str());
  size_t k = size_t(x.rank() - 2);
  std::vector<int64_t> kernel = n.attrs.get_ints("kernel_shape");
  if (kernel.size() != k)
    fail_user("{}: attribute 'kernel_shape' has {} values for {} spatial dims", n.describe(),
              kernel.size(), k);
  for (int64_t v : kernel)
    if (v < 1) fail_user("{}: attribute 'kernel_shape' has invalid value {}", n.describe(), v);
  std::vector<int64_t> strides = ints_of_rank(n, "strides", k, 1, 1);
  std::vector<int64_t> pads = n.attrs.get_ints("pads", std::vector<int64_t>(2 * k, 0));
  if (pads.size() != 2 * k)
    fail_user("{}: attribute 'pads' has {} values, expected {}", n.describe(), pads.size(), 2 * k);
  for (int64_t v : pads)
    if (v < 0) fail_user("{}: attribute 'pads' has invalid value {}", n.describe(), v);
  n.attrs.set("strides", strides);
  n.attrs.set("pads", pads);
  TensorType out{x.dtype, {x.shape[0], x.shape[1]}};
  for (size_t d = 0; d < k; ++d) {
    const Dim& in = x.shape[2 + d];
    if (!in.is_static()) {
      out.shape.push_back(
          Dim::of((in.sym() - 1) * strides[d] + (kernel[d] - pads[d] - pads[k + d])));
      continue;
    }
    int64_t v = (in.value - 1) * strides[d] - (pads[d] + pads[k + d]) + kernel[d];
    if (v < 1)
      fail_user("{}: the unpooled spatial dim {} would be {} (from input size {})", n.describe(), d,
                v, in.value);
    out.shape.push_back(Dim::fixed(v));
  }
  if (value_shape_slot(n) == 2) {  // the caller's output_shape: value dims, checked at run time
    const TensorType& s = n.inputs[2]->type;
    if (s.dtype != DType::kI64 || s.rank() != 1 || !s.is_static() || s.shape[0].value != x.rank())
      fail_user("{}: input 'output_shape' must be a 1-D int64 tensor of {} values, got {}",
                n.describe(), x.rank(), s.str());
    for (int d = 0; d < x.rank(); ++d) out.shape[size_t(d)] = value_dim(n, 0, d);
    return {out};
  }
  if (n.attrs.has("output_shape")) {
    std::vector<int64_t> shape = n.attrs.get_ints("output_shape");
    if (int(shape.size()) != x.rank())
      fail_user("{}: input 'output_shape' has {} values for rank {}", n.describe(), shape.size(),
                x.rank());
    for (size_t d = 0; d < shape.size(); ++d) {
      const Dim& inferred = out.shape[d];
      if (inferred.is_static() && shape[d] < inferred.value)
        fail_user("{}: input 'output_shape' is smaller than the unpooled shape {} in dim {}",
                  n.describe(), shape_str(out.shape), d);
    }
    for (size_t d = 0; d < shape.size(); ++d) out.shape[d] = Dim::fixed(shape[d]);
  }
  return {out};
}

}  // namespace

void add_pooling_ops(std::vector<OpInfo>& t) {
  std::vector<AttrSpec> window = {
      {"kernel_shape", AttrType::kInts, true}, {"strides", AttrType::kInts},
      {"dilations", AttrType::kInts},          {"pads", AttrType::kInts},
      {"auto_pad", AttrType::kString},         {"ceil_mode", AttrType::kInt}};
  OpInfo max_pool{OpKind::MaxPool, "MaxPool", PatternKind::kOutEWiseFusable, window};
  max_pool.attrs.push_back({"storage_order", AttrType::kInt});
  max_pool.infer_fn = infer_pool;
  max_pool.flops_fn = pool_flops;
  max_pool.num_outputs = -1;  // Y and the optional Indices (checked by inference)
  t.push_back(max_pool);

  OpInfo avg_pool{OpKind::AveragePool, "AveragePool", PatternKind::kOutEWiseFusable, window};
  avg_pool.attrs.push_back({"count_include_pad", AttrType::kInt});
  avg_pool.infer_fn = infer_pool;
  avg_pool.flops_fn = pool_flops;
  t.push_back(avg_pool);

  OpInfo lp_pool{OpKind::LpPool, "LpPool", PatternKind::kOutEWiseFusable, window};
  lp_pool.attrs.push_back({"p", AttrType::kInt});
  lp_pool.infer_fn = infer_pool;
  lp_pool.flops_fn = pool_flops;
  t.push_back(lp_pool);

  OpInfo gap{OpKind::GlobalAveragePool, "GlobalAveragePool", PatternKind::kReduction, {}};
  gap.infer_fn = infer_global_pool;
  gap.flops_fn = global_pool_flops;
  t.push_back(gap);

  OpInfo gmp{OpKind::GlobalMaxPool, "GlobalMaxPool", PatternKind::kReduction, {}};
  gmp.infer_fn = infer_global_pool;
  gmp.flops_fn = global_pool_flops;
  t.push_back(gmp);

  OpInfo unpool{OpKind::MaxUnpool,
                "MaxUnpool",
                PatternKind::kOpaque,
                {{"kernel_shape", AttrType::kInts, true},
                 {"strides", AttrType::kInts},
                 {"pads", AttrType::kInts},
                 {"output_shape", AttrType::kInts}}};
  unpool.min_inputs = 2;
  unpool.max_inputs = 3;
  unpool.const_inputs = {{2, "output_shape", "output_shape", false, /*runtime=*/true}};
  unpool.infer_fn = infer_max_unpool;
  unpool.flops_fn = no_flops;
  t.push_back(unpool);
}

}  // namespace ingot::ops::detail
