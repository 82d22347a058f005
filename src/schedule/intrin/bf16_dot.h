// bfloat16 register-tile micro-kernels of the products by bfloat16 weights (rules/bf16_matmul.h):
//   C[i, j] += float32(A[i, 2k + g]) * float32(Bp[0, k, j, g])
// for i < MR, j < NR, k < steps, g < 2,
// with A bfloat16 read in place (row-major, the depth contiguous), Bp bfloat16 in panels of NR
// columns whose depth is in pairs ([N/NR, K/2, NR, 2], one column's pair adjacent) and C float32.
// The implementation keeps the MR x NR tile in registers across the depth; per step it
// broadcasts each row's pair of A over a vector and multiplies it with the panel's NR pairs, one
// tir dot_bf16 per accumulator vector (codegen/llvm/bf16_dot.cpp): VDPBF16PS where the target has
// AVX512-BF16, two fused multiply-adds on widened values elsewhere. The ISA, the tile and the
// depth are part of the kernel's name (and so of traces).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "schedule/intrin/intrin.h"
#include "support/channel_block.h"

namespace ingot::schedule {

struct BFloat16TileSpec {
  int lanes = 16;      // float32 lanes of an accumulator vector: 8 (256-bit), 16 (512-bit)
  int mr = 4;          // rows
  int nr = 32;         // columns, a multiple of the lanes
  int64_t steps = 64;  // depth steps of 2 each
};

// "x86_avx512_dot_bf16_4x32_k384" (ISA prefix, MR x NR, steps).
std::string bf16_tile_name(const BFloat16TileSpec& s);
std::optional<BFloat16TileSpec> parse_bf16_tile_name(const std::string& name);
// Builds the intrinsic (description + implementation); register it to tensorize with it.
// InternalError on a spec out of range.
TensorIntrin make_bf16_tile_intrin(const BFloat16TileSpec& s);

}  // namespace ingot::schedule
