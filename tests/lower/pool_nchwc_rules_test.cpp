// Compute rule of MaxPoolNCHWc / AveragePoolNCHWc (pooling of channel-blocked tensors) through
// the loop-IR interpreter against a direct evaluation of the pooling definition on the blocked
// data: pads (asymmetric), strides, dilations, ceil_mode, count_include_pad, images smaller than
// the window's interior (every pixel on the border) and lanes of 8 and 16. The rule emits a row
// block with lane loops and no loop kinds; the injective schedule rule runs the rows in parallel
// and vectorizes the lanes, computing the same numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "common/tir_interpreter.h"
#include "lower/block_names.h"
#include "lower/compute/compute.h"
#include "rule_test_util.h"
#include "schedule/rules/injective.h"
#include "tir/printer.h"
#include "tir/transforms/lower_blocks.h"

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

TEST(PoolNchwcRules, TheInjectiveRuleSetsTheLoopKinds) {
  PoolParams p{9, 9, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false};
  std::vector<int64_t> xs = {2, 3, p.h, p.w, 16}, ys = {2, 3, 5, 5, 16};
  tir::Buffer x = tir::Buffer::make("x", DataType::f32(), xs),
              y = tir::Buffer::make("y", DataType::f32(), ys);
  graph::Node node = make_node(OpKind::MaxPoolNCHWc, pool_attrs(p));
  tir::PrimFunc f{"pool", {x, y}, lower::compute_rule(node.op)(node, {x}, {y})};
  std::string computed = tir::to_string(f);
  EXPECT_EQ(computed.find("parallel("), std::string::npos) << computed;
  EXPECT_EQ(computed.find("vectorized("), std::string::npos) << computed;
  EXPECT_NE(computed.find("block(\"rows\")"), std::string::npos) << computed;
  EXPECT_NE(computed.find("block(\"lanes\")"), std::string::npos) << computed;
  f.body = lower::finish_blocks(f.body);  // unique block names, as lowering gives them
  schedule::Schedule s(f);
  schedule::schedule_injective(s, CpuVectorIsa::x86(512));
  std::string scheduled = tir::to_string(tir::lower_blocks_stmt(s.func().body));
  EXPECT_NE(scheduled.find("parallel(0, 30)"), std::string::npos) << scheduled;
  EXPECT_NE(scheduled.find("vectorized(0, 16)"), std::string::npos) << scheduled;
  // The same numbers before and after scheduling.
  HostTensor in = random_f32(xs, 5, -3, 3);
  std::vector<HostTensor> outs(2, HostTensor(DataType::f32(), ys));
  for (int k = 0; k < 2; ++k) {
    TirInterpreter interp;
    interp.bind(x, in.data(), int64_t(in.bytes.size()));
    interp.bind(y, outs[size_t(k)].data(), int64_t(outs[size_t(k)].bytes.size()));
    interp.exec(k == 0 ? f.body : s.func().body);
  }
  EXPECT_EQ(outs[0].bytes, outs[1].bytes);
}

}  // namespace
}  // namespace ingot::testing
