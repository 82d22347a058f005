// Integer register-tile micro-kernels of the 8-bit products (rules/int8_matmul.h):
//   C[i, j] += int32(A[i, k * G + g]) * int32(Bp[0, k, j, g])  for i < MR, j < NR, k < steps, g < G
// with A uint8 or int8 read in place (row-major, the depth contiguous), Bp int8 in panels of NR
// columns whose depth is in groups of G ([N/NR, K/G, NR, G], G bytes of one column adjacent) and
// C int32. The implementation keeps the MR x NR tile in registers across the depth; per step it
// broadcasts each row's G bytes of A over a vector and multiplies them with the panel's NR x G
// bytes, one tir dot_i32 per accumulator vector (codegen/llvm/int_dot.cpp):
// - G = 4, uint8 A: VPDPBUSD where the target has AVX-VNNI / AVX512-VNNI (one instruction per
//   vector and step, four products per lane);
// - G = 2: both operands widened to int16 and VPMADDWD plus an add (AVX2, AVX512BW). Exact, at
//   the FMA pipe's rate: VPMADDUBSW would be twice that but saturates its int16 pair sums
//   (255 * 127 * 2 > 32767), which the exact products here never do.
// The ISA, the tile and the group are part of the kernel's name (and so of traces).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "schedule/intrin/intrin.h"
#include "support/channel_block.h"

namespace ingot::schedule {

struct Int8TileSpec {
  CpuVectorIsa::Arch arch = CpuVectorIsa::kX86;
  int lanes = 8;          // int32 lanes of an accumulator vector: 8 (256-bit), 16 (512-bit)
  int mr = 4;             // rows
  int nr = 16;            // columns, a multiple of the lanes
  int64_t steps = 64;     // depth steps of G each
  int group = 2;          // G: 4 (uint8 x int8 quads) or 2 (int16 pairs)
  bool a_signed = false;  // A int8 (else uint8)
};

// "x86_avx2_dot_u8i8_g2_4x16_k64" (ISA prefix, A's and B's types, G, MR x NR, steps).
std::string int8_tile_name(const Int8TileSpec& s);
std::optional<Int8TileSpec> parse_int8_tile_name(const std::string& name);
// Builds the intrinsic (description + implementation); register it to tensorize with it.
// InternalError on a spec out of range.
TensorIntrin make_int8_tile_intrin(const Int8TileSpec& s);

}  // namespace ingot::schedule
