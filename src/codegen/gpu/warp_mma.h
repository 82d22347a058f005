// The m16n8k16 tensor-core instruction for a warp_mma nest (ForKind::kWarpMma, see
// schedule/primitives/warp_mma.cpp) in a device function 32 threads wide along x: which element
// of its buffers each lane passes in each register of mma.sync.aligned.m16n8k16.row.col (PTX ISA,
// "Matrix Fragments for mma.m16n8k16"). Lane L = 4g + t holds A elements (g + 8 h, 2t + e + 8 s),
// B elements (2t + e + 8 s, g) and C elements (g + 8 h, 2t + q) of the instruction's 16 x 16,
// 16 x 8 and 16 x 8 tiles. The nest's reference semantics define the tiles: lane L's elements
// (h, q) are C[c(L, h, q)] += sum over k of A[a(L, h, k)] * B[b(L, q, k)], with a(), b(), c() the
// nest's flattened indices. That is an mma exactly when A's index depends on the lane only
// through g (L / 4) and B's only through t (L % 4), which is checked here by substituting
// L = 4G + T and simplifying; then each register's element is the nest's index with h, q, k (and
// for B the lane, whose t must be g's column pair) replaced by the fragment's coordinates. A
// condition around the store that does not use k (the mask of a partial tile's rows or columns)
// is dropped: the masked accumulators get sums of whatever the staged tiles hold there, and the
// write-back, masked the same way, never stores them (rows of D depend only on rows of A,
// columns only on columns of B).
#pragma once

#include <array>
#include <optional>
#include <string>

#include "codegen/gpu/device_lowering.h"
#include "tir/stmt.h"

namespace ingot::codegen {

struct WarpMmaFragments {
  tir::Buffer a, b, c;               // float16, float16, float32; flattened
  std::array<tir::Expr, 8> a_index;  // a0..a7: registers 0..3 hold (a0, a1) .. (a6, a7)
  std::array<tir::Expr, 4> b_index;  // b0..b3: registers 0..1 hold (b0, b1), (b2, b3)
  std::array<tir::Expr, 4> c_index;  // c0..c3, where d0..d3 go too
};

// The fragments of lane `lane` for the nest `loop` (the kWarpMma loop), or nullopt with the
// reason in `why` when the nest does not have the instruction's layout.
std::optional<WarpMmaFragments> warp_mma_fragments(const tir::For& loop, const tir::Var& lane,
                                                   std::string* why);

// Unlike the nest, mma.sync reads every element of its A and B tiles, the masked rows and
// columns of a partial tile too, so those must lie inside the staged buffers
// (compact_buffers keeps such buffers tile-sized). The first fragment of a warp_mma nest in `f`
// whose index bounds (over the grid, the block and the loops around it) are not provably inside
// its buffer, as "loop L reads B[lo..hi] of N elements"; "" when every one is.
std::string warp_mma_read_outside(const DeviceFunction& f);

}  // namespace ingot::codegen
