// Compute rules of the signal ops against numpy's closed forms: the Hann / Hamming / Blackman
// window formulas (periodic and symmetric), DFT as the sum x[n] exp(-+2 pi i k n / N) (numpy.fft
// fft / ifft / rfft / irfft, written out here with std::complex), STFT frames and the
// MelWeightMatrix triangles of onnx's reference for a hand-computed case.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;
using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

HostTensor window(OpKind k, int64_t size, int periodic, DataType dt = DataType::f32()) {
  graph::Attrs a;
  a.set("size", size);
  a.set("periodic", int64_t(periodic));
  return run_rule1(make_node(k, a), {}, dt, {size});
}

TEST(SignalRules, Windows) {
  for (int periodic : {0, 1}) {
    int64_t size = 10;
    double n_1 = periodic ? 10 : 9;
    std::vector<double> hann, hamming, blackman;
    for (int n = 0; n < size; ++n) {
      hann.push_back(std::pow(std::sin(kPi * n / n_1), 2));
      hamming.push_back(25.0 / 46.0 - 21.0 / 46.0 * std::cos(2 * kPi * n / n_1));
      blackman.push_back(0.42 - 0.5 * std::cos(2 * kPi * n / n_1) +
                         0.08 * std::cos(4 * kPi * n / n_1));
    }
    expect_near_all(window(OpKind::HannWindow, size, periodic).values(), hann, 1e-7);
    expect_near_all(window(OpKind::HammingWindow, size, periodic).values(), hamming, 1e-7);
    expect_near_all(window(OpKind::BlackmanWindow, size, periodic).values(), blackman, 1e-7);
  }
  // The symmetric Hann window ends in 0 and peaks at 1; float16 and integer outputs round once.
  expect_near_all(window(OpKind::HannWindow, 5, 0, DataType::f16()).values(), {0, 0.5, 1, 0.5, 0},
                  1e-3);
  expect_near_all(window(OpKind::HannWindow, 3, 0, DataType::i32()).values(), {0, 1, 0});
}

// numpy.fft.fft(x, n) along axis 0 of a [len] complex signal (zero-padded or cut to n).
std::vector<cd> ref_dft(const std::vector<cd>& x, int64_t n, bool inverse) {
  std::vector<cd> y(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t t = 0; t < n && t < int64_t(x.size()); ++t)
      y[size_t(k)] +=
          x[size_t(t)] * std::polar(1.0, (inverse ? 2 : -2) * kPi * double(k * t) / double(n));
    if (inverse) y[size_t(k)] /= double(n);
  }
  return y;
}

graph::Attrs dft_attrs(int64_t axis, int inverse, int onesided, int64_t len) {
  graph::Attrs a;
  a.set("axis", axis);
  a.set("inverse", int64_t(inverse));
  a.set("onesided", int64_t(onesided));
  a.set("dft_length", len);
  return a;
}

TEST(SignalRules, DftComplexAlongAxisWithPaddingAndCut) {
  // x: [2, 5, 3, 2] complex, transform along axis 1 with N = 7 (padding) and N = 4 (cut).
  std::vector<int64_t> shape = {2, 5, 3, 2};
  HostTensor x = random_f32(shape, 7);
  for (int64_t n : {7, 4, 5}) {
    for (int inverse : {0, 1}) {
      HostTensor y = run_rule1(make_node(OpKind::DFT, dft_attrs(1, inverse, 0, n)), {&x},
                               DataType::f32(), {2, n, 3, 2});
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t c = 0; c < 3; ++c) {
          std::vector<cd> sig;
          for (int64_t t = 0; t < 5; ++t)
            sig.emplace_back(x.get(flat_index(shape, {b, t, c, 0})),
                             x.get(flat_index(shape, {b, t, c, 1})));
          std::vector<cd> want = ref_dft(sig, n, inverse);
          for (int64_t k = 0; k < n; ++k) {
            EXPECT_NEAR(y.get(flat_index({2, n, 3, 2}, {b, k, c, 0})), want[size_t(k)].real(),
                        1e-5);
            EXPECT_NEAR(y.get(flat_index({2, n, 3, 2}, {b, k, c, 1})), want[size_t(k)].imag(),
                        1e-5);
          }
        }
    }
  }
}

TEST(SignalRules, DftRealRampClosedForm) {
  // x[n] = n, N = 8: X[0] = N(N-1)/2, X[k] = -N / (1 - exp(-2 pi i k / N)) for k != 0.
  HostTensor x(DataType::f32(), {8, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor y =
      run_rule1(make_node(OpKind::DFT, dft_attrs(0, 0, 0, 8)), {&x}, DataType::f32(), {8, 2});
  for (int k = 0; k < 8; ++k) {
    cd want = k == 0 ? cd(28, 0) : -8.0 / (1.0 - std::polar(1.0, -2 * kPi * k / 8));
    EXPECT_NEAR(y.get(2 * k), want.real(), 1e-5) << k;
    EXPECT_NEAR(y.get(2 * k + 1), want.imag(), 1e-5) << k;
  }
  // rfft keeps bins 0 .. N/2.
  HostTensor r =
      run_rule1(make_node(OpKind::DFT, dft_attrs(0, 0, 1, 8)), {&x}, DataType::f32(), {5, 2});
  for (int k = 0; k < 10; ++k) EXPECT_NEAR(r.get(k), y.get(k), 1e-6);
}

TEST(SignalRules, IrfftInvertsRfft) {
  // numpy.fft.irfft(numpy.fft.rfft(x), n) == x for even and odd n, along the last signal axis.
  for (int64_t n : {6, 7}) {
    HostTensor x = random_f32({3, n, 1}, 11);
    HostTensor spec = run_rule1(make_node(OpKind::DFT, dft_attrs(1, 0, 1, n)), {&x},
                                DataType::f32(), {3, n / 2 + 1, 2});
    HostTensor back = run_rule1(make_node(OpKind::DFT, dft_attrs(1, 1, 1, n)), {&spec},
                                DataType::f32(), {3, n, 1});
    expect_near_all(back.values(), x.values(), 1e-5);
  }
  // The imaginary parts of the DC and Nyquist bins do not contribute (numpy's c2r).
  HostTensor s(DataType::f32(), {3, 2}, {4, 9, 0, 0, 2, 9});  // N = 4: 1 + (-1)^n / 2 scaled
  HostTensor y =
      run_rule1(make_node(OpKind::DFT, dft_attrs(0, 1, 1, 4)), {&s}, DataType::f32(), {4, 1});
  expect_near_all(y.values(), {1.5, 0.5, 1.5, 0.5});
}

TEST(SignalRules, StftFramesWithWindow) {
  // signal [1, 12, 1], frames of 4 every 3 samples, Hann window, onesided: bins 0..2.
  HostTensor x = random_f32({1, 12, 1}, 5);
  HostTensor w = window(OpKind::HannWindow, 4, 1);
  graph::Attrs a;
  a.set("frame_step", int64_t(3));
  a.set("frame_length", int64_t(4));
  a.set("onesided", int64_t(1));
  HostTensor y =
      run_rule1(make_node(OpKind::STFT, a), {&x, nullptr, &w}, DataType::f32(), {1, 3, 3, 2});
  for (int64_t f = 0; f < 3; ++f) {
    std::vector<cd> frame;
    for (int64_t t = 0; t < 4; ++t) frame.emplace_back(x.get(f * 3 + t) * w.get(t), 0);
    std::vector<cd> want = ref_dft(frame, 4, false);
    for (int64_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(y.get(flat_index({1, 3, 3, 2}, {0, f, k, 0})), want[size_t(k)].real(), 1e-5);
      EXPECT_NEAR(y.get(flat_index({1, 3, 3, 2}, {0, f, k, 1})), want[size_t(k)].imag(), 1e-5);
    }
  }
  // No window, two-sided: a rectangular window.
  a.set("onesided", int64_t(0));
  HostTensor z = run_rule1(make_node(OpKind::STFT, a), {&x}, DataType::f32(), {1, 3, 4, 2});
  std::vector<cd> frame;
  for (int64_t t = 0; t < 4; ++t) frame.emplace_back(x.get(6 + t), 0);
  std::vector<cd> want = ref_dft(frame, 4, false);
  for (int64_t k = 0; k < 4; ++k)
    EXPECT_NEAR(z.get(flat_index({1, 3, 4, 2}, {0, 2, k, 0})), want[size_t(k)].real(), 1e-5);
}

TEST(SignalRules, MelWeightMatrixTriangles) {
  // onnx's reference with num_mel_bins 8, dft_length 16, sample_rate 8192, edges 0 and 4096:
  // band edges (in DFT bins) 0 0 0 1 1 2 3 4 5 6.
  graph::Attrs a;
  a.set("num_mel_bins", int64_t(8));
  a.set("dft_length", int64_t(16));
  HostTensor rate(DataType::i32(), {}, {8192});
  HostTensor lo(DataType::f32(), {}, {0});
  HostTensor hi(DataType::f32(), {}, {4096});
  HostTensor y = run_rule1(make_node(OpKind::MelWeightMatrix, a),
                           {nullptr, nullptr, &rate, &lo, &hi}, DataType::f32(), {9, 8});
  std::vector<int> edges = {0, 0, 0, 1, 1, 2, 3, 4, 5, 6};
  std::vector<double> want(72, 0.0);
  for (int i = 0; i < 8; ++i) {
    int l = edges[size_t(i)], c = edges[size_t(i) + 1], r = edges[size_t(i) + 2];
    if (c == l)
      want[size_t(c * 8 + i)] = 1;
    else
      for (int j = l; j <= c; ++j) want[size_t(j * 8 + i)] = double(j - l) / (c - l);
    for (int j = c; j < r; ++j) want[size_t(j * 8 + i)] = double(r - j) / (r - c);
  }
  expect_near_all(y.values(), want);
}

}  // namespace
}  // namespace ingot::testing
