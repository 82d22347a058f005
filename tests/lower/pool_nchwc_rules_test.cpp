// Compute rule of MaxPoolNCHWc / AveragePoolNCHWc (pooling of channel-blocked tensors) through
// the loop-IR interpreter against a direct evaluation of the pooling definition on the blocked
// data: pads (asymmetric), strides, dilations, ceil_mode, count_include_pad, images smaller than
// the window's interior (every pixel on the border) and lanes of 8 and 16.
#include <gtest/gtest.h>

#include <cmath>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

void check(OpKind op, const PoolParams& p, bool include_pad, int64_t lanes) {
  SCOPED_TRACE(::testing::Message() << "lanes " << lanes << " include_pad " << include_pad);
  int64_t n = 2, cb = 2;
  int64_t oh = pool_output_size(p.h, p.kh, p.sh, p.dh, p.pt, p.pb, p.ceil);
  int64_t ow = pool_output_size(p.w, p.kw, p.sw, p.dw, p.pl, p.pr, p.ceil);
  std::vector<int64_t> xs = {n, cb, p.h, p.w, lanes};
  HostTensor x = random_f32(xs, 21, -3, 3);
  graph::Attrs a = pool_attrs(p);
  if (op == OpKind::AveragePoolNCHWc) a.set("count_include_pad", int64_t(include_pad));
  HostTensor y = run_rule1(make_node(op, a), {&x}, DataType::f32(), {n, cb, oh, ow, lanes});
  std::vector<double> want;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t c = 0; c < cb; ++c)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          for (int64_t l = 0; l < lanes; ++l) {
            double mx = -INFINITY, sum = 0;
            int64_t cnt = 0, cnt_pad = 0;
            for (int64_t ki = 0; ki < p.kh; ++ki)
              for (int64_t kj = 0; kj < p.kw; ++kj) {
                int64_t ih = i * p.sh - p.pt + ki * p.dh, iw = j * p.sw - p.pl + kj * p.dw;
                if (ih < p.h + p.pb && iw < p.w + p.pr) ++cnt_pad;
                if (ih < 0 || iw < 0 || ih >= p.h || iw >= p.w) continue;
                double v = x.get(flat_index(xs, {b, c, ih, iw, l}));
                mx = std::max(mx, v);
                sum += v;
                ++cnt;
              }
            if (op == OpKind::MaxPoolNCHWc)
              want.push_back(mx);
            else
              want.push_back(sum / double(include_pad ? cnt_pad : cnt));
          }
  expect_near_all(y.values(), want, 1e-5);
}

TEST(PoolNchwcRules, MaxPoolPadsStrides) {
  for (int64_t lanes : {8, 16})
    check(OpKind::MaxPoolNCHWc, {7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false}, false, lanes);
}

TEST(PoolNchwcRules, MaxPoolCeilModeDilationAsymmetricPads) {
  check(OpKind::MaxPoolNCHWc, {8, 7, 2, 3, 2, 2, 2, 1, 0, 1, 0, 0, true}, false, 8);
  check(OpKind::MaxPoolNCHWc, {9, 9, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, true}, false, 16);  // SqueezeNet
}

TEST(PoolNchwcRules, AveragePoolExcludeAndIncludePad) {
  for (bool include_pad : {false, true})
    check(OpKind::AveragePoolNCHWc, {5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false}, include_pad, 8);
}

TEST(PoolNchwcRules, AveragePoolCeilModeCountsOnlyThePaddedInput) {
  // The last window overhangs the bottom/right padding: those taps never count.
  for (bool include_pad : {false, true})
    check(OpKind::AveragePoolNCHWc, {6, 6, 3, 3, 2, 2, 1, 1, 1, 0, 1, 0, true}, include_pad, 16);
}

TEST(PoolNchwcRules, ImageSmallerThanTheWindowInterior) {
  // 2x2 input, 3x3 window with pads 1 and dilation 2 on columns: no unchecked row or column.
  check(OpKind::MaxPoolNCHWc, {2, 2, 3, 2, 1, 1, 1, 2, 1, 1, 1, 1, false}, false, 8);
  check(OpKind::AveragePoolNCHWc, {2, 3, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, true}, true, 8);
}

}  // namespace
}  // namespace ingot::testing
