// AMX tile micro-kernels of the 8-bit and bfloat16 panel products (rules/int8_matmul.h,
// rules/bf16_matmul.h). The description is the dot tiles' (dot_tile.h):
//   C[i, j] += C_t(A[i, k * G + g]) * C_t(Bp[0, k, j, g])  for i < MR, j < NR, k < steps, g < G
// uint8 A x int8 Bp into int32 C with G = 4 (TDPBUSD), or bfloat16 pairs into float32 C with
// G = 2 (TDPBF16PS). The panels' layout [N/NR, K/G, NR, G] is the tiles' own: 16 steps of one
// panel's 16 columns are one B tile (16 rows of 64 bytes, the rows NR * G elements apart).
// The implementation configures the tiles (C: ceil(MR / 16) x NR / 16 tiles of 16 rows, the
// last row tile the rest; A one per row tile, B one per column tile; at most 8), loads C,
// then per 64 bytes of depth loads A's row tiles and B's column tiles and multiplies each pair
// into its C tile, stores C and releases the tiles (tir amx_* effects; codegen/llvm/
// amx_tiles.cpp, which emulates them where the target has no AMX).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "schedule/intrin/intrin.h"
#include "schedule/intrin/x86_fma.h"

namespace ingot::schedule {

struct AmxTileSpec {
  bool bf16 = false;    // bfloat16 pairs (else uint8 x int8 quads)
  int mr = 32;          // rows, 1 to 32
  int nr = 32;          // columns: 16, 32 or 48
  int64_t steps = 192;  // depth steps of G each, a multiple of 16 (64 bytes)
};

// "x86_amx_dot_u8i8_g4_32x32_k192", "x86_amx_dot_bf16_32x32_k384".
std::string amx_tile_name(const AmxTileSpec& s);
std::optional<AmxTileSpec> parse_amx_tile_name(const std::string& name);
// Why the spec cannot be built ("" when it can): its tiles must fit the 8 registers.
std::string amx_tile_problem(const AmxTileSpec& s);
// Builds the intrinsic; InternalError on a spec with a problem.
TensorIntrin make_amx_tile_intrin(const AmxTileSpec& s);

// The AMX form of a register-tile dot spec (FmaTileSpec::amx: the blocked convolutions' tiles,
// rules/conv2d.h): why its layout cannot be multiplied on tiles ("" when it can; the dot
// tile's own rules, dot_problem in x86_fma.cpp, checked before).
std::string amx_dot_tile_problem(const FmaTileSpec& s);
// Its implementation over the description's buffers: the tiles configured (C: ceil(mr / 16) x
// nr / 16 tiles, A one per row tile, B one per column tile), C loaded, then per value of the
// outer reduction variables and per chunk of min(q, 16) groups of A's row (q: the extent of the
// next-to-last reduction variable) A's row tiles and B's column tiles loaded (row strides from
// two element addresses) and each pair multiplied into its C tile; C stored, the tiles
// released. The matmul tiles above are its two-variable case.
tir::PrimFunc amx_dot_tile_impl(const FmaTileSpec& s, const std::string& name, const tir::Buffer& A,
                                const tir::Buffer& B, const tir::Buffer& C);

}  // namespace ingot::schedule
