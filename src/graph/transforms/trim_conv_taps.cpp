// trim_conv_taps (see trim_conv_taps.h).
#include "graph/transforms/trim_conv_taps.h"

#include <algorithm>

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

namespace {

// The taps [first, last] of one spatial dim that read the input for some output position, and
// the new pads; nullopt when every tap does or none does.
struct TapRange {
  int64_t first = 0, last = 0, pad_begin = 0, pad_end = 0;
};
std::optional<TapRange> reaching_taps(int64_t in, int64_t out, int64_t k, int64_t stride,
                                      int64_t dil, int64_t pad_begin) {
  // Tap t reads input position o * stride + t * dil - pad_begin for o in [0, out).
  auto reaches = [&](int64_t t) {
    int64_t lo = t * dil - pad_begin, hi = (out - 1) * stride + t * dil - pad_begin;
    return hi >= 0 && lo < in;
  };
  TapRange r{-1, -1, 0, 0};
  for (int64_t t = 0; t < k; ++t)
    if (reaches(t)) {
      if (r.first < 0) r.first = t;
      r.last = t;
    }
  if (r.first < 0 || (r.first == 0 && r.last == k - 1)) return std::nullopt;
  r.pad_begin = pad_begin - r.first * dil;
  // The least end pad that keeps the last output's window (input columns past it are unread).
  int64_t span = (r.last - r.first) * dil + 1;
  r.pad_end = std::max<int64_t>(0, (out - 1) * stride + span - in - r.pad_begin);
  if (r.pad_begin < 0 || (in + r.pad_begin + r.pad_end - span) / stride + 1 != out)
    return std::nullopt;
  return r;
}

// W[OC, IC/g, k...] cut to the taps [first[d], last[d]] of each spatial dim d.
std::vector<float> slice_weights(const Tensor& w, const std::vector<TapRange>& taps,
                                 std::vector<int64_t>* shape) {
  std::vector<int64_t> ws = w.shape();
  size_t sp = ws.size() - 2;
  *shape = {ws[0], ws[1]};
  int64_t inner = 1;
  for (size_t d = 0; d < sp; ++d) {
    shape->push_back(taps[d].last - taps[d].first + 1);
    inner *= shape->back();
  }
  const float* src = w.data_as<float>();
  std::vector<float> out;
  out.reserve(size_t(ws[0] * ws[1] * inner));
  std::vector<int64_t> idx(sp, 0);
  for (int64_t oi = 0; oi < ws[0] * ws[1]; ++oi) {
    for (int64_t e = 0; e < inner; ++e) {
      int64_t rem = e, flat = oi;
      for (size_t d = sp; d-- > 0;) {
        int64_t extent = (*shape)[2 + d];
        idx[d] = taps[d].first + rem % extent;
        rem /= extent;
      }
      for (size_t d = 0; d < sp; ++d) flat = flat * ws[2 + d] + idx[d];
      out.push_back(src[flat]);
    }
  }
  return out;
}

void trim(Graph& g, Node& conv) {
  const Value* x = conv.inputs[0];
  const Value* w = conv.inputs[1];
  const Value* y = conv.outputs[0];
  if (x->type.dtype != DType::kF32 || !w->is_constant() || w->type.dtype != DType::kF32 ||
      !x->type.is_static() || !y->type.is_static() || x->type.rank() < 3)
    return;
  size_t sp = size_t(x->type.rank()) - 2;
  std::vector<int64_t> xs = x->type.static_shape(), ys = y->type.static_shape(),
                       ws = w->type.static_shape();
  std::vector<int64_t> strides = conv.attrs.get_ints("strides", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> dil = conv.attrs.get_ints("dilations", std::vector<int64_t>(sp, 1));
  std::vector<int64_t> pads = conv.attrs.get_ints("pads", std::vector<int64_t>(2 * sp, 0));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) return;
  std::vector<TapRange> taps(sp);
  bool any = false;
  for (size_t d = 0; d < sp; ++d) {
    if (pads[d] < 0 || pads[sp + d] < 0) return;
    auto r = reaching_taps(xs[2 + d], ys[2 + d], ws[2 + d], strides[d], dil[d], pads[d]);
    if (r) {
      taps[d] = *r;
      any = true;
    } else {
      taps[d] = {0, ws[2 + d] - 1, pads[d], pads[sp + d]};
    }
  }
  if (!any) return;
  std::vector<int64_t> shape;
  std::vector<float> values = slice_weights(*w->constant, taps, &shape);
  conv.inputs[1] = g.add_constant(w->name + "_trimmed", f32_constant(shape, values));
  std::vector<int64_t> kernel(shape.begin() + 2, shape.end());
  for (size_t d = 0; d < sp; ++d) pads[d] = taps[d].pad_begin, pads[sp + d] = taps[d].pad_end;
  conv.attrs.set("kernel_shape", kernel);
  conv.attrs.set("pads", pads);
}

}  // namespace

void trim_conv_taps(Graph& g) {
  for (const auto& n : g.nodes())
    if (n->op == ops::OpKind::Conv && n->outputs.size() == 1) trim(g, *n);
}

}  // namespace ingot::graph
