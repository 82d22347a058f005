// Depthwise 2-D convolution on NCHW tensors (groups = C = OC, constant weights; MobileNet's 3x3
// layers outside the layout pass's chains: -O0, -O1): [zero padding kernel] then one store per
// output pixel with the KH x KW taps written out in one expression (the bias, or 0, plus the
// taps, with the fused epilogue), a spatial block whose loop kinds the injective rule sets (by
// default the (n, channel) planes in parallel and the columns vectorized, so each output vector
// is computed in registers and stored once).
#include "lower/compute/common.h"
#include "lower/compute/epilogue.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

std::optional<std::vector<NodeKernel>> lower_depthwise_conv2d(const graph::Node& node,
                                                              ValueFactory& values) {
  if (node.op != ops::OpKind::Conv) return std::nullopt;
  const graph::Value* x = node.inputs.at(0);
  const graph::Value* w = node.inputs.at(1);
  const graph::Value* bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  const graph::Value* z = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
  const graph::Value* y = node.outputs.at(0);
  auto f32 = [](const graph::Value* v) { return v->type.dtype == graph::DType::kF32; };
  if (!f32(x) || !f32(w) || !f32(y) || x->type.rank() != 4 || !w->is_constant() ||
      (bias && (!f32(bias) || !bias->is_constant())))
    return std::nullopt;
  std::vector<int64_t> xs = x->type.static_shape(), ws = w->type.static_shape(),
                       ys = y->type.static_shape();
  int64_t c = xs[1];
  if (node.attrs.get_int("group", 1) != c || ws[0] != c || ws[1] != 1 || ys[1] != c)
    return std::nullopt;
  std::vector<int64_t> strides = node.attrs.get_ints("strides", {1, 1});
  std::vector<int64_t> dil = node.attrs.get_ints("dilations", {1, 1});
  std::vector<int64_t> pads = node.attrs.get_ints("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4) return std::nullopt;
  for (int64_t p : pads)
    if (p < 0) return std::nullopt;

  std::vector<NodeKernel> kernels;
  // 1. Zero padding.
  const graph::Value* input = x;
  std::vector<int64_t> ps = {xs[0], c, xs[2] + pads[0] + pads[2], xs[3] + pads[1] + pads[3]};
  if (ps != xs) {
    input = values.temporary(y->name + "_padded_input", graph::DType::kF32, ps);
    PrimFunc pad = pad_kernel(xs, ps, pads[0], pads[1]);
    pad.name = "pad";
    kernels.push_back({pad, {x, input}});
  }
  // 2. The convolution, its taps written out.
  Buffer xb = f32_buffer("X", ps), wb = f32_buffer("W", ws), bb = f32_buffer("B", {c}),
         zb = f32_buffer("Z", ys), yb = f32_buffer("Y", ys);
  // One store per output pixel, a block whose loop kinds the injective rule sets (by default
  // the (n, channel) loop parallel and the columns vectorized).
  auto pixel = [&](const Index& i) {
    Expr n = floordiv(i[0], i64(c)), ch = floormod(i[0], i64(c)), oh = i[1], ow = i[2];
    Expr acc = bias ? bb.load({ch}) : make_const(DataType::f32(), 0);
    for (int64_t kh = 0; kh < ws[2]; ++kh)
      for (int64_t kw = 0; kw < ws[3]; ++kw)
        acc = acc + xb.load({n, ch, oh * strides[0] + kh * dil[0], ow * strides[1] + kw * dil[1]}) *
                        wb.load({ch, i64(0), i64(kh), i64(kw)});
    std::vector<Expr> yi = {n, ch, oh, ow};
    return BufferStore::make(yb, apply_epilogue(node, acc, z ? zb.load(yi) : Expr()), yi);
  };
  NodeKernel k;
  k.func.name = "depthwise_conv2d";
  k.func.body = loop_nest({ys[0] * c, ys[2], ys[3]}, "nc", pixel);
  k.func.params = {xb, wb};
  k.args = {input, w};
  for (auto [value, buffer] : {std::pair{bias, bb}, std::pair{z, zb}})
    if (value != nullptr) {
      k.func.params.push_back(buffer);
      k.args.push_back(value);
    }
  k.func.params.push_back(yb);
  k.args.push_back(y);
  k.main = true;
  kernels.push_back(std::move(k));
  return kernels;
}

}  // namespace ingot::lower
