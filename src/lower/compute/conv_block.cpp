// The block form of a 1-D or 2-D Conv (NCHW-style, float32 or float16, any groups: depthwise has
// one input channel per group) on every target that describes products as blocks (the GPU
// targets, the c target, the llvm target's NCHW convs that layout_nchwc leaves), instead of the
// row form: one block "conv" over [n, the output's spatial dims but the last] (dims of extent
// > 1), i = output channel, j = the last spatial dim (an output column) and one reduce k over
// (the group's input channel, the kernel window), with the bias (or 0) as its init. Where the
// window can leave the input, the padding is a guard on the update,
//   Y = select(inside, Y + W * X, Y),
// and X's indices are clamped into the input, so the load is in bounds wherever it is evaluated
// (a vector select evaluates both sides). The rules decide how it runs: the GPU matmul rule
// tiles it like a product (rules/gpu_matmul.h: output channels x columns per thread block, k in
// slabs of whole windows), rule direct_conv (rules/direct_conv.h) splits k into the input
// channel and the taps and partitions the guard away. The fused epilogue (summand, activation)
// is a pass after it. A float16 conv accumulates in float32 and rounds once, as a float16 MatMul
// (product_nest.h).
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
  const int r = x.ndim() - 2;  // spatial rank
  // (3-D convs keep the row form: their window's index arithmetic in the rule's default 4 x 4
  // register tiles spills on sm_90.)
  const bool float_data = y->dtype == DataType::f32() || y->dtype == DataType::f16();
  if (r < 1 || r > 2 || !float_data || x->dtype != y->dtype || w->dtype != y->dtype) return Stmt();
  const int64_t groups = node.attrs.get_int("group", 1);
  std::vector<int64_t> xs = const_shape(x), ws = const_shape(w), ys = const_shape(y);
  std::vector<int64_t> strides = node.attrs.get_ints("strides", std::vector<int64_t>(r, 1));
  std::vector<int64_t> dilations = node.attrs.get_ints("dilations", std::vector<int64_t>(r, 1));
  std::vector<int64_t> pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * r, 0));
  int64_t window = 1;
  for (int d = 0; d < r; ++d) window *= ws[size_t(2 + d)];
  // Loops: n and the output's spatial dims but the last (extent > 1), the output channel, the
  // last spatial dim, then k over (the group's input channel, the window).
  ProductNest nest;
  auto spatial = [&](const std::string& name, int64_t extent) {
    return extent > 1 ? Expr(nest.add(name, extent, IterKind::kSpatial)) : i64(0);
  };
  Expr n = spatial("n", ys[0]);
  std::vector<Expr> out(static_cast<size_t>(r));
  for (int d = 0; d + 1 < r; ++d)
    out[size_t(d)] = spatial("o" + std::to_string(d), ys[size_t(2 + d)]);
  Var oc = nest.add("i", ys[1], IterKind::kSpatial);
  out[size_t(r - 1)] = nest.add("j", ys.back(), IterKind::kSpatial);
  Var k = nest.add("k", ws[1] * window, IterKind::kReduce);
  // The input channel: the group's first (its output channels are consecutive) plus k's.
  Expr icg = floordiv(k, i64(window));
  Expr ic = groups > 1 ? floordiv(oc, i64(ys[1] / groups)) * i64(ws[1]) + icg : icg;
  Index xi = {n, ic}, wi = {oc, icg};
  // The window leaves the input where the padding is read or the last window runs past it.
  Expr inside;
  auto require = [&](Expr c) { inside = inside.defined() ? (inside && c) : c; };
  int64_t step = window;
  for (int d = 0; d < r; ++d) {
    const size_t sd = size_t(2 + d);
    step /= ws[sd];
    Expr tap = floormod(floordiv(k, i64(step)), i64(ws[sd]));
    Expr at = out[size_t(d)] * i64(strides[size_t(d)]) + tap * i64(dilations[size_t(d)]) -
              i64(pads[size_t(d)]);
    int64_t last =
        (ys[sd] - 1) * strides[size_t(d)] + (ws[sd] - 1) * dilations[size_t(d)] - pads[size_t(d)];
    const bool before = pads[size_t(d)] > 0, past = last >= xs[sd];
    if (before) require(at >= i64(0));
    if (past) require(at < i64(xs[sd]));
    Expr clamped = past ? min(at, i64(xs[sd] - 1)) : at;
    xi.push_back(before ? max(clamped, i64(0)) : clamped);
    wi.push_back(tap);
  }
  Index yi = {n, oc};
  yi.insert(yi.end(), out.begin(), out.end());
  const Buffer acc = accumulator_of(y);
  Stmt init = BufferStore::make(
      acc, bias.defined() ? widen(bias.load({oc})) : make_const(acc->dtype, 0), yi);
  Expr sum = acc.load(yi) + widen(w.load(wi)) * widen(x.load(xi));
  Stmt update =
      BufferStore::make(acc, inside.defined() ? select(inside, sum, acc.load(yi)) : sum, yi);
  Stmt product = nest.make(update, init, "conv");
  Buffer z = inputs.size() > 3 ? inputs[3] : Buffer();
  if (!acc.same_as(y))
    return widened_kernel(acc, product, epilogue_pass(node, y, Buffer(), z, acc));
  if (!has_epilogue(node)) return product;
  return SeqStmt::make({product, epilogue_pass(node, y, Buffer(), z)});
}

}  // namespace ingot::lower
