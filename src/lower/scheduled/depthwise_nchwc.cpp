// Depthwise 2-D convolution on channel-blocked tensors (ConvNCHWc with groups = channels; the
// MobileNet / EfficientNet / ConvNeXt layers): the block-form compute of
// lower/compute/blocked_conv.h over the node's weights on the unpadded input (padding is a guard
// that rule depthwise_conv_nchwc partitions away, so no padded copy is made; the rule lays the
// weights out) with the fused summand and activation as its epilogue.
#include "lower/compute/blocked_conv.h"
#include "lower/compute/epilogue.h"
#include "lower/scheduled/conv_nchwc_geometry.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

std::vector<NodeKernel> lower_depthwise_nchwc(const graph::Node& node) {
  ConvNchwcGeometry g = conv_nchwc_geometry(node);
  INGOT_ICHECK(g.spatial == 2, "{}: depthwise blocked convolution is 2-D only", node.describe());
  const graph::Value* bias = optional_input(node, 2);
  const graph::Value* z = optional_input(node, 3);
  const graph::Value* y = node.outputs[0];
  DepthwiseConvShape s;
  s.n = g.xs[0], s.blocks = g.xs[1], s.blk = g.xs[4], s.channels = g.ws[0];
  s.ih = g.xs[2], s.iw = g.xs[3], s.oh = g.ys[2], s.ow = g.ys[3], s.kh = g.ws[2], s.kw = g.ws[3];
  s.sh = g.strides[0], s.sw = g.strides[1], s.dh = g.dil[0], s.dw = g.dil[1];
  s.top = g.pads[0], s.left = g.pads[1];
  INGOT_ICHECK(g.ys[4] == s.blk && g.ys[1] == s.blocks, "{}: depthwise blocks differ",
               node.describe());
  ConvEpilogue epilogue;
  std::vector<Buffer> extra;
  Buffer zb = f32_buffer("Z", g.ys);
  if (z) extra.push_back(zb);
  if (has_epilogue(node))
    epilogue = [&node, z, zb](const Expr& v, const std::vector<Expr>& idx) {
      return apply_epilogue(node, v, z ? zb.load(idx) : Expr());
    };
  NodeKernel k{depthwise_conv_compute(s, bias != nullptr, epilogue, extra),
               {node.inputs[0], node.inputs[1]}};
  if (bias) k.args.push_back(bias);
  if (z) k.args.push_back(z);
  k.args.push_back(y);
  k.main = true;
  return {k};
}

}  // namespace ingot::lower
