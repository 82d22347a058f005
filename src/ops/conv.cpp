// Conv (1-D, 2-D, 3-D; grouped): output shape, explicit window attributes, FLOPs.
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_conv(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& w = input_type(n, 1, "W");
  int64_t group = check_conv_operands(n, x, w);
  std::vector<int64_t> kernel;
  for (int i = 2; i < w.rank(); ++i) {
    if (!w.shape[i].is_static())
      fail_user("{}: weight W {} must have a static kernel shape", n.describe(), w.str());
    kernel.push_back(w.shape[i].value);
  }
  if (n.attrs.has("kernel_shape") && n.attrs.get_ints("kernel_shape") != kernel)
    fail_user("{}: attribute 'kernel_shape' does not match weight W {}", n.describe(), w.str());
  const Dim& c = x.shape[1];
  const Dim& wc = w.shape[1];
  if (c.is_static() && wc.is_static() && c.value != wc.value * group)
    fail_user("{}: input X has {} channels but W {} with group={} expects {}", n.describe(),
              c.value, w.str(), group, wc.is_static() ? wc.value * group : -1);
  const Dim& m = w.shape[0];
  if (m.is_static() && m.value % group != 0)
    fail_user("{}: {} output channels are not divisible by group={}", n.describe(), m.value, group);
  if (has_input(n, 2)) {
    const TensorType& b = n.inputs[2]->type;
    require_same_dtype(n, x, b, "X", "B");
    if (b.rank() != 1 || !(b.shape[0] == m || !b.shape[0].is_static() || !m.is_static()))
      fail_user("{}: bias B {} must have shape [{}]", n.describe(), b.str(), m.str());
  }
  n.attrs.set("group", group);
  std::vector<Dim> spatial = window_output_dims(n, x, kernel, /*ceil_mode=*/false);
  TensorType out{x.dtype, {x.shape[0], m}};
  out.shape.insert(out.shape.end(), spatial.begin(), spatial.end());
  // The fused epilogue (graph pass fuse_epilogue; ONNX Runtime's FusedConv form): a summand Z
  // of the output's type and an activation.
  if (has_input(n, 3) && n.inputs[3]->type != out)
    fail_user("{}: summand Z {} must have the output type {}", n.describe(),
              n.inputs[3]->type.str(), out.str());
  check_fused_activation(n);
  return {out};
}

double conv_flops(const Node& n) {
  const TensorType& w = n.inputs[1]->type;
  double per_output = 1;  // multiply-adds per output element: C/group * prod(kernel)
  for (int i = 1; i < w.rank(); ++i)
    if (w.shape[i].is_static()) per_output *= double(w.shape[i].value);
  double outs = approx_elements(n.outputs[0]->type);
  return 2 * per_output * outs + (has_input(n, 2) ? outs : 0) + (has_input(n, 3) ? outs : 0);
}

}  // namespace

void add_conv_ops(std::vector<OpInfo>& t) {
  OpInfo conv{OpKind::Conv, "Conv", PatternKind::kOutEWiseFusable, conv_attr_specs()};
  conv.min_inputs = 2;
  conv.max_inputs = 4;
  conv.infer_fn = infer_conv;
  conv.flops_fn = conv_flops;
  t.push_back(conv);
}

}  // namespace ingot::ops::detail
