// MaxPoolNCHWc / AveragePoolNCHWc (graph pass layout_nchwc, never imported from ONNX): 2-D
// MaxPool / AveragePool on a channel-blocked input [N, C/c, H, W, c], the window sliding over
// H and W of every lane; the output keeps the blocks [N, C/c, OH, OW, c]. Same attributes as the
// NCHW ops (kernel_shape, strides, dilations, explicit pads, ceil_mode, count_include_pad).
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_pool_nchwc(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  if (x.rank() != 5)
    fail_user("{}: needs a blocked 2-D input [N, C/c, H, W, c], got X {}", n.describe(), x.str());
  std::vector<int64_t> kernel = n.attrs.get_ints("kernel_shape");
  if (kernel.size() != 2)
    fail_user("{}: attribute 'kernel_shape' must have 2 values", n.describe());
  for (int64_t k : kernel)
    if (k < 1) fail_user("{}: attribute 'kernel_shape' has invalid value {}", n.describe(), k);
  int64_t ceil_mode = n.attrs.get_int("ceil_mode", 0);
  TensorType plain = x;  // the window geometry of one lane: [N, C/c, H, W]
  plain.shape.pop_back();
  std::vector<Dim> spatial = window_output_dims(n, plain, kernel, ceil_mode != 0);
  n.attrs.set("ceil_mode", ceil_mode);
  if (n.op == OpKind::AveragePoolNCHWc)
    n.attrs.set("count_include_pad", n.attrs.get_int("count_include_pad", 0));
  return {TensorType{x.dtype, {x.shape[0], x.shape[1], spatial[0], spatial[1], x.shape[4]}}};
}

double pool_nchwc_flops(const Node& n) {
  double k = 1;
  for (int64_t e : n.attrs.get_ints("kernel_shape")) k *= double(e);
  return k * approx_elements(n.outputs[0]->type);
}

}  // namespace

void add_pooling_nchwc_ops(std::vector<OpInfo>& t) {
  std::vector<AttrSpec> window = {
      {"kernel_shape", AttrType::kInts, true}, {"strides", AttrType::kInts},
      {"dilations", AttrType::kInts},          {"pads", AttrType::kInts},
      {"auto_pad", AttrType::kString},         {"ceil_mode", AttrType::kInt}};
  OpInfo max_pool{OpKind::MaxPoolNCHWc, "MaxPoolNCHWc", PatternKind::kOutEWiseFusable, window};
  max_pool.infer_fn = infer_pool_nchwc;
  max_pool.flops_fn = pool_nchwc_flops;
  t.push_back(max_pool);

  OpInfo avg_pool{OpKind::AveragePoolNCHWc, "AveragePoolNCHWc", PatternKind::kOutEWiseFusable,
                  window};
  avg_pool.attrs.push_back({"count_include_pad", AttrType::kInt});
  avg_pool.infer_fn = infer_pool_nchwc;
  avg_pool.flops_fn = pool_nchwc_flops;
  t.push_back(avg_pool);
}

}  // namespace ingot::ops::detail
