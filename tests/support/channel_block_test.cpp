// Channel blocks of blocked convolutions: which input blocks an output block of a grouped conv
// reads (conv_input_blocks), checked against the group arithmetic channel by channel, and the
// blocks the layout pass gives grouped convs (grouped_conv_blocks).
#include "support/channel_block.h"

#include <gtest/gtest.h>

namespace ingot {
namespace {

// Every output channel's group inputs lie inside the input blocks its output block reads, and
// those blocks hold nothing but inputs of the block's groups.
void expect_covers(int64_t ic, int64_t oc, int64_t groups, int64_t ib, int64_t nr) {
  auto in = conv_input_blocks(ic, oc, groups, ib, nr);
  ASSERT_TRUE(in.has_value()) << ic << " " << oc << " " << groups << " " << ib << " " << nr;
  int64_t icg = ic / groups, ocg = oc / groups;
  for (int64_t ob = 0; ob < oc / nr; ++ob) {
    int64_t first = (ob / in->out_per_step) * in->in_per_step * ib;
    int64_t last = first + in->count * ib;  // exclusive, in channels
    int64_t lo = (ob * nr / ocg) * icg, hi = ((ob * nr + nr - 1) / ocg + 1) * icg;
    EXPECT_EQ(first, lo) << "block " << ob;
    EXPECT_EQ(last, hi) << "block " << ob;
  }
}

TEST(ConvInputBlocks, GroupsNarrowerAndWiderThanTheBlock) {
  expect_covers(64, 64, 16, 8, 8);      // 4 per group: a block spans 2 groups
  expect_covers(128, 128, 32, 16, 16);  // 4 per group on AVX-512: 4 groups
  expect_covers(64, 64, 4, 8, 16);      // 16 per group: 2 input blocks, 1 output block
  expect_covers(64, 128, 2, 16, 32);    // 32 -> 64 per group: 2 output blocks share 2 inputs
  expect_covers(64, 64, 2, 8, 16);
  auto dense = conv_input_blocks(20, 40, 1, 16, 32);  // groups = 1: all (padded) blocks
  ASSERT_TRUE(dense.has_value());
  EXPECT_EQ(dense->count, 2);
  EXPECT_EQ(dense->in_per_step, 0);
}

TEST(ConvInputBlocks, NarrowGroupsMayEndInPaddingLanes) {
  // RegNet: 104 channels in 13 groups of 8, 16-lane blocks: 7 blocks, the last half padding.
  auto in = conv_input_blocks(104, 104, 13, 16, 16);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->count, 1);
  EXPECT_EQ(in->in_per_step, 1);
  EXPECT_TRUE(grouped_conv_blocks(440, 440, 55, 512, 16).has_value());
  EXPECT_TRUE(conv_input_blocks(8, 8, 2, 16, 16));  // 2 groups of 4 in one 16-lane block
  EXPECT_FALSE(conv_input_blocks(8, 8, 2, 8, 16));  // two 8-lane input blocks, only one exists
}

TEST(ConvInputBlocks, NarrowGroupsAreLaneGroupsOnly) {
  // Groups narrower than the output block must read the same channels' input block (lane
  // groups); 4 -> 8 channels per group would need block-diagonal weights, which no tiled layout
  // of W expresses: refused (the conv stays in NCHW).
  EXPECT_TRUE(conv_input_blocks(64, 64, 16, 16, 16));
  EXPECT_FALSE(conv_input_blocks(64, 128, 16, 8, 16));
  EXPECT_FALSE(conv_input_blocks(64, 64, 16, 8, 16));  // input blocks narrower than the output's
  EXPECT_FALSE(grouped_conv_blocks(64, 128, 16, 512, 0));
}

TEST(ConvInputBlocks, RefusesGroupsThatSplitABlock) {
  EXPECT_FALSE(conv_input_blocks(24, 24, 8, 8, 8));    // 3 per group
  EXPECT_FALSE(conv_input_blocks(24, 40, 8, 16, 16));  // 3 -> 5 per group: no whole blocks
  EXPECT_FALSE(conv_input_blocks(64, 64, 4, 32, 16));  // 16 inputs per group, 32-lane blocks
  EXPECT_FALSE(conv_input_blocks(64, 64, 3, 8, 8));    // 64 channels in 3 groups
}

TEST(ChannelBlock, TwoVectorsWhenPaddingIsSmall) {
  EXPECT_EQ(channel_block(64, 256), 16);
  EXPECT_EQ(channel_block(1000, 256), 16);  // 1008: 0.8% padding
  EXPECT_EQ(channel_block(1000, 512), 32);  // 1024: 2.4%
  EXPECT_EQ(channel_block(40, 256), 8);     // 48 would pad 20%
  EXPECT_EQ(channel_block(24, 512), 32);    // few channels: rounded up to whole vectors
  EXPECT_EQ(channel_block(58, 512), 32);    // 64 with one-vector blocks too
  EXPECT_EQ(channel_block(116, 256), 16);   // 128 either way
  EXPECT_EQ(channel_block(232, 512), 32);   // 256: 6.7% more than 240
  EXPECT_EQ(channel_block(104, 512), 16);   // 128 would be 14% more than 112
  EXPECT_EQ(channel_block(72, 512), 16);    // 96 would be 20% more than 80
  EXPECT_EQ(channel_block(3, 256), 8);
}

TEST(GroupedConvBlocks, PicksVectorBlocksAndKeepsAFittingInputBlock) {
  auto narrow = grouped_conv_blocks(128, 128, 32, 512, 0);  // ResNeXt 32x4d stage 1
  ASSERT_TRUE(narrow.has_value());
  EXPECT_EQ(narrow->nr, 16);
  EXPECT_EQ(narrow->ib, 16);
  auto wide = grouped_conv_blocks(256, 256, 8, 256, 16);  // 32 per group, input in 16s
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->nr, 16);
  EXPECT_EQ(wide->ib, 16);
  auto regroup = grouped_conv_blocks(48, 48, 2, 512, 32);  // 24 per group: 32 does not fit
  EXPECT_FALSE(regroup.has_value());
  EXPECT_FALSE(grouped_conv_blocks(24, 24, 8, 256, 0));
  EXPECT_FALSE(grouped_conv_blocks(64, 64, 1, 512, 0));  // not grouped
}

}  // namespace
}  // namespace ingot
