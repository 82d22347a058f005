// The block form of a 2-D Conv (NCHW, float32, any groups: depthwise has one input channel per
// group) on GPU targets, instead of the CPU row form: one block "conv" over [n, oh] (dims of
// extent > 1), i = output channel, j = output column and one reduce k over (the group's input
// channel, kernel row, kernel column), with the bias (or 0)
// as its init, so that the GPU matmul rule tiles it like a product (rules/gpu_matmul.h: output
// channels x columns per thread block, a register tile per thread) and every thread's tile is a
// box of the output. The input is read through a padding test where the window can leave it
// (the rule then reads it from global memory rather than staging a box that would leave the
// tensor); the fused epilogue (summand, activation) is a pass after it.
#include "lower/compute/compute.h"
#include "lower/compute/epilogue.h"
#include "lower/compute/product_nest.h"

namespace ingot::lower {

using namespace tir;

Stmt conv_block(const graph::Node& node, const std::vector<Buffer>& inputs,
                const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& w = inputs.at(1);
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  if (x.ndim() != 4 || y->dtype != DataType::f32() || x->dtype != y->dtype || w->dtype != y->dtype)
    return Stmt();
  const int64_t groups = node.attrs.get_int("group", 1);
  std::vector<int64_t> xs = const_shape(x), ws = const_shape(w), ys = const_shape(y);
  std::vector<int64_t> strides = node.attrs.get_ints("strides", {1, 1});
  std::vector<int64_t> dilations = node.attrs.get_ints("dilations", {1, 1});
  std::vector<int64_t> pads = node.attrs.get_ints("pads", {0, 0, 0, 0});
  const int64_t kh_n = ws[2], kw_n = ws[3];
  ProductNest nest;
  Expr n = ys[0] > 1 ? Expr(nest.add("n", ys[0], IterKind::kSpatial)) : i64(0);
  Expr oh = ys[2] > 1 ? Expr(nest.add("oh", ys[2], IterKind::kSpatial)) : i64(0);
  Var oc = nest.add("i", ys[1], IterKind::kSpatial);
  Var ow = nest.add("j", ys[3], IterKind::kSpatial);
  Var k = nest.add("k", ws[1] * kh_n * kw_n, IterKind::kReduce);
  // The input channel: the group's first (its output channels are consecutive) plus k's.
  Expr icg = floordiv(k, i64(kh_n * kw_n));
  Expr ic = groups > 1 ? floordiv(oc, i64(ys[1] / groups)) * i64(ws[1]) + icg : icg;
  Expr kh = floormod(floordiv(k, i64(kw_n)), i64(kh_n)), kw = floormod(k, i64(kw_n));
  Expr ih = oh * i64(strides[0]) + kh * i64(dilations[0]) - i64(pads[0]);
  Expr iw = ow * i64(strides[1]) + kw * i64(dilations[1]) - i64(pads[1]);
  // The window leaves the input where the padding is read or the last window runs past it.
  Expr inside;
  auto require = [&](Expr c) { inside = inside.defined() ? (inside && c) : c; };
  for (int d = 0; d < 2; ++d) {
    Expr at = d == 0 ? ih : iw;
    int64_t last = (ys[2 + d] - 1) * strides[d] + (ws[2 + d] - 1) * dilations[d] - pads[d];
    if (pads[d] > 0) require(at >= i64(0));
    if (last >= xs[2 + d]) require(at < i64(xs[2 + d]));
  }
  Expr xv = x.load({n, ic, ih, iw});
  if (inside.defined()) xv = select(inside, xv, make_const(y->dtype, 0));
  Index yi = {n, oc, oh, ow};
  Stmt init = BufferStore::make(y, bias.defined() ? bias.load({oc}) : make_const(y->dtype, 0), yi);
  Stmt update = BufferStore::make(y, y.load(yi) + w.load({oc, icg, kh, kw}) * xv, yi);
  // k steps through whole windows of one input channel at a time in the rule's slabs.
  Stmt product =
      nest.make(update, init, "conv", {{kKGroupAnnotation, std::to_string(kh_n * kw_n)}});
  if (!has_epilogue(node)) return product;
  Buffer z = inputs.size() > 3 ? inputs[3] : Buffer();
  return SeqStmt::make({product, epilogue_pass(node, y, Buffer(), z)});
}

}  // namespace ingot::lower
