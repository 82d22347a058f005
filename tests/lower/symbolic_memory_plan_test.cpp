// The symbolic memory plan: slot choices and offsets as expressions, checked at several bindings
// of the symbols: no two tensors live at the same kernel overlap, every tensor lies inside the
// arena, offsets are 64-aligned, and the arena shrinks with the symbols.
#include "lower/symbolic_memory_plan.h"

#include <gtest/gtest.h>

#include <map>

namespace ingot::lower {
namespace {

using graph::SymExpr;

int64_t at(const SymExpr& e, int64_t seq) {
  return *e.substitute({{"seq", seq}}).as_constant();
}

// Every pair of tensors live at a common kernel is disjoint under `seq`.
void expect_valid(const std::vector<SymbolicBuffer>& bufs, const SymbolicPlan& p, int64_t seq) {
  const int64_t total = at(p.total_bytes, seq);
  EXPECT_EQ(total % 64, 0);
  for (size_t i = 0; i < bufs.size(); ++i) {
    const int64_t oi = at(p.offsets[i], seq), ni = at(bufs[i].bytes, seq);
    EXPECT_LE(oi + ni, total) << "buffer " << i << " at seq " << seq;
    if (bufs[i].parent < 0) {
      EXPECT_EQ(oi % 64, 0);
    }
    for (size_t j = i + 1; j < bufs.size(); ++j) {
      if (bufs[i].parent >= 0 || bufs[j].parent >= 0) continue;
      bool live_together =
          bufs[i].first_use <= bufs[j].last_use && bufs[j].first_use <= bufs[i].last_use;
      if (!live_together) continue;
      const int64_t oj = at(p.offsets[j], seq), nj = at(bufs[j].bytes, seq);
      EXPECT_TRUE(oi + ni <= oj || oj + nj <= oi)
          << "buffers " << i << " and " << j << " overlap at seq " << seq;
      EXPECT_NE(p.slots[i], p.slots[j]);
    }
  }
}

TEST(SymbolicMemoryPlan, ChainSharesSlotsAndTheArenaFollowsTheSymbol) {
  const SymExpr seq = SymExpr::symbol("seq");
  // k0: x -> a [seq*768 f32], k1: a -> b [seq*3072], k2: b -> c [seq*768], k3: c -> d [3072].
  std::vector<SymbolicBuffer> bufs = {
      {seq * 3072, 3072 * 1024, 0, 1},
      {seq * 12288, 12288 * 1024, 1, 2},
      {seq * 3072, 3072 * 1024, 2, 3},
      {SymExpr(12288), 12288, 3, 4},
  };
  SymbolicPlan p = plan_memory_symbolic(bufs);
  EXPECT_EQ(p.slots[0], p.slots[2]);  // c reuses a's slot
  EXPECT_NE(p.slots[0], p.slots[1]);
  for (int64_t s : {1, 7, 100, 1024}) expect_valid(bufs, p, s);
  // Two slots of a at seq plus b at seq plus nothing for d beyond them at large seq.
  EXPECT_LT(at(p.total_bytes, 1), at(p.total_bytes, 1024) / 100);
}

TEST(SymbolicMemoryPlan, ASlotIsAsLargeAsTheLargestTensorItHolds) {
  const SymExpr seq = SymExpr::symbol("seq");
  // A static 1 MB tensor and a symbolic one take the same slot at different times.
  std::vector<SymbolicBuffer> bufs = {
      {SymExpr(1 << 20), 1 << 20, 0, 1},
      {SymExpr(64), 64, 0, 5},  // long-lived: keeps the first slot's neighbour busy
      {seq * 4096, 4096 * 512, 2, 3},
  };
  SymbolicPlan p = plan_memory_symbolic(bufs);
  EXPECT_EQ(p.slots[0], p.slots[2]);
  for (int64_t s : {1, 255, 256, 257, 512}) expect_valid(bufs, p, s);
  EXPECT_EQ(at(p.total_bytes, 1), (1 << 20) + 64);     // max(1 MB, 4 KB) + 64
  EXPECT_EQ(at(p.total_bytes, 512), 512 * 4096 + 64);  // max(1 MB, 2 MB) + 64
}

TEST(SymbolicMemoryPlan, ChildrenLiveInsideTheirParentsSlot) {
  const SymExpr seq = SymExpr::symbol("seq");
  std::vector<SymbolicBuffer> bufs = {
      {SymExpr(512), 512, 0, 2},          // a Concat output
      {SymExpr(256), 256, 0, 0, 0, 0},    // its first half
      {SymExpr(256), 256, 1, 1, 0, 256},  // its second half
      {seq * 64, 64 * 8, 0, 3},
  };
  SymbolicPlan p = plan_memory_symbolic(bufs);
  EXPECT_EQ(p.slots[1], p.slots[0]);
  EXPECT_EQ(p.slots[2], p.slots[0]);
  for (int64_t s : {1, 8}) {
    EXPECT_EQ(at(p.offsets[2], s), at(p.offsets[0], s) + 256);
    expect_valid(bufs, p, s);
  }
}

// A random mix of lifetimes and sizes: the plan is valid at every binding tried.
TEST(SymbolicMemoryPlan, RandomLifetimesNeverOverlap) {
  const SymExpr seq = SymExpr::symbol("seq");
  uint32_t state = 12345;
  auto next = [&](uint32_t n) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % n;
  };
  std::vector<SymbolicBuffer> bufs;
  for (int i = 0; i < 60; ++i) {
    int first = int(next(40)), len = int(next(6));
    int64_t c = 64 * (1 + int64_t(next(20)));
    SymExpr bytes = next(2) ? seq * c : SymExpr(c * 16);
    bufs.push_back({bytes, *bytes.substitute({{"seq", 64}}).as_constant(), first, first + len});
  }
  SymbolicPlan p = plan_memory_symbolic(bufs);
  for (int64_t s : {1, 2, 16, 63, 64}) expect_valid(bufs, p, s);
}

}  // namespace
}  // namespace ingot::lower
