// Depthwise 2-D convolution on channel-blocked tensors (ConvNCHWc with groups = channels; the
// MobileNet / EfficientNet / ConvNeXt layers): the weights packed [CB, KH, KW, BLK], then the
// block-form compute of schedule/rules/depthwise_conv_nchwc.h on the unpadded input (padding is
// a guard its rule partitions away, so no padded copy is made) with the fused summand and
// activation as its epilogue.
#include "lower/compute/epilogue.h"
#include "lower/scheduled/conv_nchwc_geometry.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/depthwise_conv_nchwc.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

std::vector<NodeKernel> lower_depthwise_nchwc(const graph::Node& node, int /*vector_bits*/,
                                              ValueFactory& values) {
  ConvNchwcGeometry g = conv_nchwc_geometry(node);
  INGOT_ICHECK(g.spatial == 2, "{}: depthwise blocked convolution is 2-D only", node.describe());
  const graph::Value* bias = optional_input(node, 2);
  const graph::Value* z = optional_input(node, 3);
  const graph::Value* y = node.outputs[0];
  schedule::DepthwiseConvShape s;
  s.n = g.xs[0], s.blocks = g.xs[1], s.blk = g.xs[4], s.channels = g.ws[0];
  s.ih = g.xs[2], s.iw = g.xs[3], s.oh = g.ys[2], s.ow = g.ys[3], s.kh = g.ws[2], s.kw = g.ws[3];
  s.sh = g.strides[0], s.sw = g.strides[1], s.dh = g.dil[0], s.dw = g.dil[1];
  s.top = g.pads[0], s.left = g.pads[1];
  INGOT_ICHECK(g.ys[4] == s.blk && g.ys[1] == s.blocks, "{}: depthwise blocks differ",
               node.describe());
  // Weights [C, 1, KH, KW] -> [CB, KH, KW, BLK], zero padded.
  const float* wd = node.inputs[1]->constant->data_as<float>();
  int64_t taps = s.kh * s.kw;
  std::vector<float> wp(size_t(s.blocks * taps * s.blk), 0.0f);
  for (int64_t ch = 0; ch < s.channels; ++ch)
    for (int64_t t = 0; t < taps; ++t)
      wp[size_t(((ch / s.blk) * taps + t) * s.blk + ch % s.blk)] = wd[ch * taps + t];
  const graph::Value* wv = values.constant(node.inputs[1]->name + "_nchwc",
                                           f32_tensor({s.blocks, s.kh, s.kw, s.blk}, wp));
  const graph::Value* bv = values.constant(
      (bias ? bias->name : y->name) + "_nchwc_bias",
      f32_tensor({s.blocks * s.blk}, padded_bias(bias, s.channels, s.blocks * s.blk)));
  schedule::ConvEpilogue epilogue;
  std::vector<Buffer> extra;
  Buffer zb = f32_buffer("Z", g.ys);
  if (z) extra.push_back(zb);
  if (has_epilogue(node))
    epilogue = [&node, z, zb](const Expr& v, const std::vector<Expr>& idx) {
      return apply_epilogue(node, v, z ? zb.load(idx) : Expr());
    };
  PrimFunc f = schedule::make_depthwise_conv_nchwc(s, epilogue, extra);
  f.schedule_rule = schedule::kDepthwiseConvRule;
  NodeKernel k{f, {node.inputs[0], wv, bv}};
  if (z) k.args.push_back(z);
  k.args.push_back(y);
  return {k};
}

}  // namespace ingot::lower
