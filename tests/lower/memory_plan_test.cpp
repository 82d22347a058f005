// Static memory planning: hand-computed offsets for chains, branches and alignment.
#include "lower/memory_plan.h"

#include <gtest/gtest.h>

namespace ingot::lower {
namespace {

TEST(MemoryPlan, ChainReusesTheBlockTwoStepsBack) {
  // k0: x->a, k1: a->b, k2: b->c, k3: c->out. c may reuse a's block, not b's.
  MemoryPlan p = plan_memory({{100, 0, 1}, {100, 1, 2}, {100, 2, 3}});
  EXPECT_EQ(p.offsets[0], 0);
  EXPECT_EQ(p.offsets[1], 128);
  EXPECT_EQ(p.offsets[2], 0);
  EXPECT_EQ(p.total_bytes, 256);
}

TEST(MemoryPlan, OffsetsAndTotalAre64Aligned) {
  MemoryPlan p = plan_memory({{1, 0, 0}, {65, 0, 0}, {64, 0, 0}});
  // Same first use: larger first (65 -> 128 bytes at 0), then 64, then 1.
  EXPECT_EQ(p.offsets[1], 0);
  EXPECT_EQ(p.offsets[2], 128);
  EXPECT_EQ(p.offsets[0], 192);
  EXPECT_EQ(p.total_bytes, 256);
  for (int64_t o : p.offsets) EXPECT_EQ(o % kArenaAlignment, 0);
}

TEST(MemoryPlan, BestFitPicksTheSmallestFreeBlock) {
  // t0 (256) and t2 (64) die at step 1 with the long-lived t1 between them, so the free blocks
  // [0,256) and [320,384) stay apart; t3 (64) takes the smaller one.
  MemoryPlan p = plan_memory({{256, 0, 1}, {64, 0, 5}, {64, 0, 1}, {64, 2, 3}});
  EXPECT_EQ(p.offsets[0], 0);
  EXPECT_EQ(p.offsets[1], 256);
  EXPECT_EQ(p.offsets[2], 320);
  EXPECT_EQ(p.offsets[3], 320);
  EXPECT_EQ(p.total_bytes, 384);
}

TEST(MemoryPlan, FreedNeighboursCoalesce) {
  // Two adjacent 64-byte blocks die, then a 128-byte tensor fits in their union.
  MemoryPlan p = plan_memory({{64, 0, 0}, {64, 0, 0}, {64, 0, 3}, {128, 1, 2}});
  EXPECT_EQ(p.offsets[3], 0);
  EXPECT_EQ(p.total_bytes, 192);
}

TEST(MemoryPlan, GrowsAFreeBlockAtTheEnd) {
  // t0 at 0 (live to 5), t1 at 64 dies at 0; t2 (192) extends t1's tail block: 64 + 192.
  MemoryPlan p = plan_memory({{64, 0, 5}, {64, 0, 0}, {192, 1, 1}});
  EXPECT_EQ(p.offsets[2], 64);
  EXPECT_EQ(p.total_bytes, 256);
}

TEST(MemoryPlan, OverlappingLifetimesNeverShareBytes) {
  std::vector<BufferLifetime> ts;
  for (int i = 0; i < 20; ++i) ts.push_back({int64_t(40 + 37 * (i % 7)), i % 5, i % 5 + i % 3});
  MemoryPlan p = plan_memory(ts);
  for (size_t a = 0; a < ts.size(); ++a)
    for (size_t b = a + 1; b < ts.size(); ++b) {
      bool live_together = ts[a].first_use <= ts[b].last_use && ts[b].first_use <= ts[a].last_use;
      bool overlap =
          p.offsets[a] < p.offsets[b] + ts[b].bytes && p.offsets[b] < p.offsets[a] + ts[a].bytes;
      EXPECT_FALSE(live_together && overlap) << a << " and " << b;
    }
  for (size_t a = 0; a < ts.size(); ++a) EXPECT_LE(p.offsets[a] + ts[a].bytes, p.total_bytes);
}

}  // namespace
}  // namespace ingot::lower
