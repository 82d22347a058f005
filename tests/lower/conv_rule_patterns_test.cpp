// The CPU convolution rules are chosen by the pattern of lowering's computes
// (lower/compute/blocked_conv.h): each compute takes its own rule and no other, a compute whose
// weights are not constants takes none (nothing could lay them out), and the default schedule's
// trace holds the weights' layout (transform_layout), which replays to the same kernel.
#include <gtest/gtest.h>

#include "lower/compute/blocked_conv.h"
#include "schedule/rules/conv2d.h"
#include "schedule/rules/conv_weight_layout.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/depthwise_conv_nchwc.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/matmul.h"
#include "schedule/trace.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

tir::PrimFunc blocked_conv(bool constant_weights) {
  lower::BlockedConvShape s;
  s.n = 1, s.ic = 20, s.oc = 40, s.ib = 16, s.nr = 32;
  s.in = {6, 7}, s.out = {4, 5}, s.kernel = {3, 3}, s.strides = {1, 1}, s.dilations = {1, 1};
  tir::PrimFunc f = lower::blocked_conv_compute(s, true);
  if (constant_weights) f.constant_params = {1, 2};
  return f;
}

tir::PrimFunc depthwise_conv() {
  lower::DepthwiseConvShape s;
  s.blocks = 2, s.blk = 16, s.channels = 24, s.ih = s.iw = s.oh = s.ow = 6, s.kh = s.kw = 3;
  s.top = s.left = 1;
  tir::PrimFunc f = lower::depthwise_conv_compute(s, true);
  f.constant_params = {1, 2};
  return f;
}

TEST(ConvRulePatterns, EachComputeTakesItsOwnRule) {
  tir::PrimFunc blocked = blocked_conv(true), depthwise = depthwise_conv();
  EXPECT_TRUE(schedule::is_blocked_conv(blocked));
  EXPECT_FALSE(schedule::is_depthwise_conv_nchwc(blocked));
  EXPECT_FALSE(schedule::is_dense_matmul(blocked));
  EXPECT_TRUE(schedule::is_depthwise_conv_nchwc(depthwise));
  EXPECT_FALSE(schedule::is_blocked_conv(depthwise));
  EXPECT_FALSE(schedule::is_blocked_conv(blocked_conv(false)));
  tir::IRModule m;
  for (tir::PrimFunc f : {blocked, depthwise, blocked_conv(false)}) {
    f.schedule_rule = schedule::kInjectiveRule;
    m.kernels.push_back(f);
  }
  schedule::assign_schedule_rules(m, "llvm");
  EXPECT_EQ(m.kernels[0].schedule_rule, schedule::kBlockedConv2dRule);
  EXPECT_EQ(m.kernels[1].schedule_rule, schedule::kDepthwiseConvRule);
  EXPECT_EQ(m.kernels[2].schedule_rule, schedule::kInjectiveRule);
}

TEST(ConvRulePatterns, TheTraceLaysTheWeightsOutAndReplays) {
  for (int bits : {512, 256}) {
    SCOPED_TRACE(bits);
    tir::PrimFunc f = blocked_conv(true);
    schedule::Schedule s(f);
    schedule::schedule_blocked_conv2d(s, "conv", CpuVectorIsa::x86(bits));
    // W [40, 20, 3, 3] in output blocks of 32 and input blocks of 16 (both zero padded), the
    // channel within the output block innermost; the bias past OC = 40 padded to [2, 32].
    ASSERT_EQ(s.func().layouts.size(), 2u);
    EXPECT_EQ(s.func().layouts[0].layout.splits, (std::vector<int64_t>{0, 32, 1, 16}));
    EXPECT_EQ(s.func().layouts[0].layout.perm, (std::vector<int64_t>{0, 2, 4, 5, 3, 1}));
    EXPECT_EQ(s.func().layouts[1].layout.splits, (std::vector<int64_t>{0, 32}));
    ASSERT_GE(s.trace().instructions.size(), 3u);  // get_block, then the two layouts
    EXPECT_EQ(s.trace().instructions[1].kind, "transform_layout");
    EXPECT_EQ(s.trace().instructions[2].kind, "transform_layout");
    EXPECT_TRUE(tir::structural_equal(s.trace().replay(f).func(), s.func()));
  }
}

}  // namespace
}  // namespace ingot::testing
