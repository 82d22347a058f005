// Pooling: MaxPool, AveragePool and LpPool (explicit window attributes, ceil_mode) and
// GlobalAveragePool.
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
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
  if (n.op == OpKind::MaxPool) {
    if (n.attrs.get_int("storage_order", 0) != 0)
      fail_user("{}: attribute 'storage_order'=1 is not supported", n.describe());
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
  TensorType out = x;
  for (int i = 2; i < x.rank(); ++i) out.shape[i] = Dim::fixed(1);
  return {out};
}

double global_pool_flops(const Node& n) {
  return approx_elements(n.inputs[0]->type);
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
}

}  // namespace ingot::ops::detail
