// Static memory planning: hand-computed offsets for chains, branches and alignment, and for
// tensors placed inside others (Concat inputs in their slices of the output).
#include "lower/memory_plan.h"

#include <gtest/gtest.h>

#include "support/error.h"

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

// A tensor inside another: `parent` and its offset in it.
BufferLifetime inside(int64_t bytes, int first, int last, int parent, int64_t offset) {
  return {bytes, first, last, parent, offset};
}

TEST(MemoryPlan, SlicesLiveInTheirParentAtTheirOffsets) {
  // k0 writes a (72 bytes) and k1 writes b (120 bytes) into their slices of c (192 bytes), k2
  // reads c. d (64, [0, 0]) is live with a: it cannot share c's block, although c itself is
  // first used at k2.
  MemoryPlan p =
      plan_memory({{192, 2, 2}, inside(72, 0, 2, 0, 0), inside(120, 1, 2, 0, 72), {64, 0, 0}});
  EXPECT_EQ(p.offsets[0], 0);  // c: first used (through a) at 0, larger than d
  EXPECT_EQ(p.offsets[1], 0);
  EXPECT_EQ(p.offsets[2], 72);  // not 64-aligned: a slice starts where the previous one ends
  EXPECT_EQ(p.offsets[3], 192);
  EXPECT_EQ(p.total_bytes, 256);
}

TEST(MemoryPlan, ParentStaysLiveUntilItsLastSliceIsRead) {
  // c (128) holds a at 0 and b at 64; c is read at k2, but a is read until k5. e (128, [4, 4])
  // must not take c's block; f (128, [6, 6]) may.
  MemoryPlan p = plan_memory(
      {{128, 2, 2}, inside(64, 0, 5, 0, 0), inside(64, 1, 2, 0, 64), {128, 4, 4}, {128, 6, 6}});
  EXPECT_EQ(p.offsets[0], 0);
  EXPECT_EQ(p.offsets[3], 128);
  EXPECT_EQ(p.offsets[4], 0);
  EXPECT_EQ(p.total_bytes, 256);
}

TEST(MemoryPlan, NestedSlicesAddTheirOffsets) {
  // outer (256) = [inner (192) = [a 64, b 128], c 64]; inner is used only through its slices.
  MemoryPlan p = plan_memory({{64, 9, 9},  // x: first used after the rest, placed last
                              {256, 3, 3},
                              inside(192, 2, 2, 1, 0),
                              inside(64, 0, 3, 2, 0),
                              inside(128, 1, 3, 2, 64),
                              inside(64, 2, 3, 1, 192)});
  EXPECT_EQ(p.offsets[1], 0);
  EXPECT_EQ(p.offsets[2], 0);
  EXPECT_EQ(p.offsets[3], 0);
  EXPECT_EQ(p.offsets[4], 64);
  EXPECT_EQ(p.offsets[5], 192);
  EXPECT_EQ(p.offsets[0], 0);  // x reuses outer's block once all of it is dead
  EXPECT_EQ(p.total_bytes, 256);
}

TEST(MemoryPlan, SliceOutsideItsParentIsAnInternalError) {
  EXPECT_THROW(plan_memory({{100, 0, 1}, inside(64, 0, 1, 0, 40)}), InternalError);
  EXPECT_THROW(plan_memory({inside(64, 0, 1, 1, 0), inside(64, 0, 1, 0, 0)}), InternalError);
  EXPECT_THROW(plan_memory({{64, 0, 1}, inside(64, 0, 1, 7, 0)}), InternalError);
}

TEST(MemoryPlan, TensorsOutsideAParentNeverShareItsBytesWhileAnySliceLives) {
  // Parents of 3 slices each, slices with lifetimes of their own, and plain tensors between.
  std::vector<BufferLifetime> ts;
  for (int g = 0; g < 6; ++g) {
    int parent = int(ts.size());
    int64_t slice = 40 + 24 * (g % 3);
    ts.push_back({3 * slice, 2 * g + 2, 2 * g + 3 + g % 2});
    for (int s = 0; s < 3; ++s)
      ts.push_back(inside(slice, 2 * g + s % 2, 2 * g + 2 + s, parent, s * slice));
    ts.push_back({int64_t(50 + 30 * g), g, g + 2});
  }
  MemoryPlan p = plan_memory(ts);
  // The live range of everything under each outermost tensor.
  std::vector<int> root(ts.size());
  std::vector<std::pair<int, int>> span(ts.size(), {1 << 30, -1});
  for (size_t i = 0; i < ts.size(); ++i) {
    int r = int(i);
    while (ts[size_t(r)].parent >= 0) r = ts[size_t(r)].parent;
    root[i] = r;
    span[size_t(r)].first = std::min(span[size_t(r)].first, ts[i].first_use);
    span[size_t(r)].second = std::max(span[size_t(r)].second, ts[i].last_use);
  }
  for (size_t a = 0; a < ts.size(); ++a) {
    EXPECT_LE(p.offsets[a] + ts[a].bytes, p.total_bytes);
    if (ts[a].parent >= 0) {
      EXPECT_EQ(p.offsets[a], p.offsets[size_t(ts[a].parent)] + ts[a].offset_in_parent);
    }
    for (size_t b = a + 1; b < ts.size(); ++b) {
      if (root[a] == root[b]) continue;
      auto sa = span[size_t(root[a])], sb = span[size_t(root[b])];
      bool live_together = sa.first <= sb.second && sb.first <= sa.second;
      bool overlap =
          p.offsets[a] < p.offsets[b] + ts[b].bytes && p.offsets[b] < p.offsets[a] + ts[a].bytes;
      EXPECT_FALSE(live_together && overlap) << a << " and " << b;
    }
  }
}

}  // namespace
}  // namespace ingot::lower
