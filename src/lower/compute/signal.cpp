// Compute rules of the audio / signal ops: the window generators (Hann, Hamming, Blackman), DFT,
// STFT and MelWeightMatrix. All arithmetic is in float64 and rounded once into the output dtype.
// DFT and STFT are direct O(n^2) transforms: each output bin is a serial reduction over the
// input samples, with the twiddle angle taken from (k * n) mod N so that it stays exact for any
// length; the outer output indices run in parallel.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

constexpr double kPi = std::numbers::pi;

Expr f64(double v) {
  return make_const(DataType::f64(), v);
}
Expr as_f64(Expr e) {
  return cast(DataType::f64(), std::move(e));
}
Expr cosine(Expr x) {
  return call(Intrinsic::cos, {std::move(x)});
}
Expr sine(Expr x) {
  return call(Intrinsic::sin, {std::move(x)});
}

// Index `o` with the trailing real/imaginary index `c` appended.
Index with_part(Index o, int64_t c) {
  o.push_back(i64(c));
  return o;
}

// One direct transform: for output index `o`, sums term(n) over n in [0, len) into a float64
// real / imaginary pair, then stores scale * (re, im) into y[o, 0] and (when y has two parts)
// y[o, 1]. term(n, re, im) returns the two updates.
using TermFn = std::function<std::pair<Expr, Expr>(Expr n)>;
Stmt transform_bin(const Buffer& y, const Index& o, Expr len, Expr scale, const TermFn& term) {
  Accumulator re("re", DataType::f64()), im("im", DataType::f64());
  Stmt loop = serial_loop("n", i64(0), len, [&](Expr n) {
    auto [dre, dim] = term(n);
    return SeqStmt::make({re.set(re.get() + dre), im.set(im.get() + dim)});
  });
  std::vector<Stmt> body = {
      re.set(f64(0)), im.set(f64(0)), loop,
      BufferStore::make(y, cast(y->dtype, re.get() * scale), with_part(o, 0))};
  int64_t parts = 0;
  if (is_const_int(y->shape.back(), &parts) && parts == 2)
    body.push_back(BufferStore::make(y, cast(y->dtype, im.get() * scale), with_part(o, 1)));
  return re.scope(im.scope(SeqStmt::make(body)));
}

// The twiddle angle 2 pi (k n mod N) / N.
Expr twiddle_angle(Expr k, Expr n, Expr big_n) {
  return as_f64(floormod(k * n, big_n)) * (f64(2 * kPi) / as_f64(big_n));
}

// values[axis] for an axis that may be known only at run time (values over dims 0 .. r-2).
Expr along(const Expr& axis, const std::vector<Expr>& values) {
  int64_t a = 0;
  if (is_const_int(axis, &a)) return values.at(size_t(a));
  Expr v = values.back();
  for (size_t d = values.size() - 1; d-- > 0;) v = select(axis == i64(int64_t(d)), values[d], v);
  return v;
}

// DFT along `axis` (a constant, or a value symbol the caller's input decides).
Stmt dft_nest(const graph::Node& node, const Buffer& x, const Buffer& y, const Expr& axis) {
  std::vector<int64_t> xs = const_shape(x);
  const size_t r = xs.size();
  const bool inverse = node.attrs.get_int("inverse", 0) != 0;
  const bool onesided = node.attrs.get_int("onesided", 0) != 0;
  const bool irfft = inverse && onesided;
  std::vector<Expr> lengths;
  for (size_t d = 0; d + 1 < r; ++d) lengths.push_back(i64(xs[d]));
  const Expr in_len = along(axis, lengths);
  const Expr big_n = node.attrs.has("dft_length") ? i64(node.attrs.get_int("dft_length", 1))
                     : irfft                      ? i64(2) * (in_len - i64(1))
                                                  : in_len;
  const bool complex_in = xs.back() == 2;
  // Input samples (or, for the inverse real transform, one-sided bins) that take part: the rest
  // is cut off, and missing ones are zero padding.
  const Expr used = min(in_len, irfft ? floordiv(big_n, i64(2)) + i64(1) : big_n);
  const Expr scale = inverse ? f64(1) / as_f64(big_n) : f64(1);
  std::vector<Expr> rows(y->shape.begin(), y->shape.end() - 1);
  return loop_nest(Extents(rows), "i", [&](const Index& o) {
    const Expr k = along(axis, std::vector<Expr>(o.begin(), o.end()));
    return transform_bin(y, o, used, scale, [&](Expr n) -> std::pair<Expr, Expr> {
      Index xi = o;
      int64_t a = 0;
      if (is_const_int(axis, &a)) {
        xi[size_t(a)] = n;
      } else {
        for (size_t d = 0; d + 1 < r; ++d) xi[d] = select(axis == i64(int64_t(d)), n, o[d]);
      }
      Expr xr = as_f64(x.load(with_part(xi, 0)));
      Expr xim = complex_in ? as_f64(x.load(with_part(xi, 1))) : f64(0);
      Expr th = twiddle_angle(k, n, big_n);
      Expr c = cosine(th), s = sine(th);
      if (irfft) {
        // Hermitian extension: bins 1 .. N/2 (exclusive of N/2 for even N) count twice.
        Expr twice =
            n > i64(0) && (floormod(big_n, i64(2)) != i64(0) || n != floordiv(big_n, i64(2)));
        Expr w = select(twice, f64(2), f64(1));
        return {w * (xr * c - xim * s), f64(0)};
      }
      if (inverse) return {xr * c - xim * s, xim * c + xr * s};
      return {xr * c + xim * s, xim * c - xr * s};
    });
  });
}

}  // namespace

Stmt compute_window(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  (void)inputs;
  const Buffer& y = outputs.at(0);
  int64_t size = node.attrs.get_int("size", 0);
  bool periodic = node.attrs.get_int("periodic", 1) != 0;
  // A symmetric window of one sample divides by 0 (NaN in numpy); it is [1] here, as in torch.
  int64_t denom = std::max<int64_t>(periodic ? size : size - 1, 1);
  // The caller's size (a value symbol): the same step, computed at run time.
  Expr step = f64(2 * kPi / double(denom));
  if (is_symbolic(y)) {
    Expr n = y->shape[0];
    step = f64(2 * kPi) / as_f64(max(periodic ? n : n - i64(1), i64(1)));
  }
  ops::OpKind kind = node.op;
  return serial_nest(y->shape, "i", [&](const Index& o) {
    Expr a = as_f64(o[0]) * step;
    Expr w;
    if (kind == ops::OpKind::HannWindow) {
      Expr s = sine(a * f64(0.5));
      w = s * s;
    } else if (kind == ops::OpKind::HammingWindow) {
      w = f64(25.0 / 46.0) - f64(21.0 / 46.0) * cosine(a);
    } else {
      INGOT_ICHECK(kind == ops::OpKind::BlackmanWindow, "{}: not a window op", node_label(node));
      w = f64(0.42) - f64(0.5) * cosine(a) + f64(0.08) * cosine(a * f64(2));
    }
    return BufferStore::make(y, cast(y->dtype, w), o);
  });
}

Stmt compute_dft(const graph::Node& node, const std::vector<Buffer>& inputs,
                 const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  const int axis = node_axis(node, 1, x.ndim());
  return dft_nest(node, x, outputs.at(0), i64(axis));
}

Stmt compute_dft_value_axis(const graph::Node& node, const std::vector<Buffer>& inputs,
                            const std::vector<Buffer>& outputs, Expr axis) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  return dft_nest(node, x, outputs.at(0), axis);
}

Stmt compute_stft_values(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs, Expr step, Expr frame) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  Buffer window = inputs.size() > 2 ? inputs[2] : Buffer();
  bool complex_in = const_shape(x).back() == 2;
  std::vector<Expr> rows(y->shape.begin(), y->shape.end() - 1);  // batch, frame, bin
  return loop_nest(Extents(rows), "i", [&](const Index& o) {
    return transform_bin(y, o, frame, f64(1), [&](Expr n) -> std::pair<Expr, Expr> {
      Index xi = {o[0], o[1] * step + n};
      Expr w = window.defined() ? as_f64(window.load({n})) : f64(1);
      Expr xr = as_f64(x.load(with_part(xi, 0))) * w;
      Expr xim = complex_in ? as_f64(x.load(with_part(xi, 1))) * w : f64(0);
      Expr th = twiddle_angle(o[2], n, frame);
      Expr c = cosine(th), s = sine(th);
      return {xr * c + xim * s, xim * c - xr * s};
    });
  });
}

Stmt compute_stft(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  return compute_stft_values(node, inputs, outputs, i64(node.attrs.get_int("frame_step", 1)),
                             i64(node.attrs.get_int("frame_length", 1)));
}

Stmt compute_mel_weight_matrix(const graph::Node& node, const std::vector<Buffer>& inputs,
                               const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  // The bin count is the output's; a DFT length the caller gives is read from its input.
  const Expr bins = y->shape.at(1);
  const Expr len = inputs.at(1).defined()
                       ? cast(DataType::i64(), inputs[1].load(scalar_index(inputs[1])))
                       : i64(node.attrs.get_int("dft_length", 1));
  Expr rate = as_f64(inputs.at(2).load(scalar_index(inputs[2])));
  Expr lo = as_f64(inputs.at(3).load(scalar_index(inputs[3])));
  Expr hi = as_f64(inputs.at(4).load(scalar_index(inputs[4])));
  // mel(f) = 2595 log10(1 + f / 700); the band edges are num_mel_bins + 2 points evenly spaced
  // in mel from lower to upper edge, mapped back to hertz and then to DFT bins
  // floor((dft_length + 1) * f / sample_rate).
  double ln10 = std::log(10.0);
  auto mel = [&](Expr f) { return f64(2595) * log(f64(1) + f / f64(700)) / f64(ln10); };
  Expr lo_mel = mel(lo);
  Expr mel_step = (mel(hi) - lo_mel) / as_f64(bins + i64(2));
  auto edge = [&](Expr t) {
    Expr m = as_f64(t) * mel_step + lo_mel;
    Expr hz = f64(700) * (exp(m / f64(2595) * f64(ln10)) - f64(1));
    return cast(DataType::i64(), call(Intrinsic::floor, {as_f64(len + i64(1)) * hz / rate}));
  };
  return loop_nest(Extents(y->shape), "i", [&](const Index& o) {
    Expr j = o[0], i = o[1];
    Expr left = edge(i), center = edge(i + i64(1)), right = edge(i + i64(2));
    // Rising edge left..center (a single 1 at the center when they coincide), then the
    // falling edge center..right, which wins at the center.
    Expr rise =
        select(center == left, select(j == center, f64(1), f64(0)),
               select(j >= left && j <= center, as_f64(j - left) / as_f64(center - left), f64(0)));
    Expr fall = as_f64(right - j) / as_f64(right - center);
    Expr w = select(right > center && j >= center && j < right, fall, rise);
    return BufferStore::make(y, cast(y->dtype, w), o);
  });
}

}  // namespace ingot::lower
