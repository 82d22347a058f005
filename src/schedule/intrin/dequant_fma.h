// Dequantizing FP32 register-tile micro-kernels for weight-only quantized products (WQMatMul,
// lower/compute/weight_quant.cpp): C[MR, NR] += A[MR, K] * dequant(Q)[K, NR] over the whole depth
// K, where dequant(Q)(k, j) = float(Q[k, j]) * S[k / G, j] (int8), or
// (float(nibble(k, j)) - 8) * S[k / G, j] (int4: byte Q[k / 2, j], k even its low nibble, odd its
// high one). The description is that expression exactly as lowering writes it, so tensorize
// matches the product block's tile; Q and S are one NR-wide column panel each (the rule lays the
// integers and scales out in panels, rules/matmul_dequant.h).
//
// The implementation sums each group of G steps of k unscaled in a local MR x NR tile, in steps
// that read 64 bytes of the panel (one cache line; two k per int8 step at NR = 32, four int4
// ones), with the stored integers converted once per step and shared by the MR rows; the tile
// then updates C once per group: C += (part - 8 * sum of the group's A) * S[g] (int8: part * S).
// That reassociation (the scale applied to each group's partial sum, the zero point to its sum
// of A) changes rounding only; it saves a multiply per weight, and a subtract per int4 weight.
// With a prefetch distance each step first prefetches the panel's stream that many bytes ahead
// (the product is memory-bound at one row, and the hardware prefetchers of some machines do not
// run far enough ahead of one stream). Names: "<isa prefix>_dequant_i8_f32_<MR>x<NR>_k<K>_g<G>"
// ("i4" for int4), "_p<bytes>" appended with a prefetch; the prefix is CpuVectorIsa's
// kernel_prefix ("x86_avx512", "x86_avx2", "aarch64_neon").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "schedule/intrin/intrin.h"
#include "support/channel_block.h"

namespace ingot::schedule {

struct DequantTileSpec {
  CpuVectorIsa::Arch arch = CpuVectorIsa::kX86;
  int lanes = 16;       // floats per vector register: 16 (AVX-512), 8 (AVX2), 4 (NEON)
  int bits = 8;         // 8 (int8) or 4 (nibbles)
  int mr = 4, nr = 32;  // rows and columns; NR at most 4 vectors
  int64_t depth = 0;    // K, a multiple of the group
  int64_t group = 0;    // k per scale, even
  int prefetch = 0;     // bytes ahead along Q's panel (a multiple of 64), 0 for none
};

std::string dequant_tile_name(const DequantTileSpec& s);
std::optional<DequantTileSpec> parse_dequant_tile_name(const std::string& name);
// Builds the intrinsic; InternalError if the spec is out of range.
TensorIntrin make_dequant_tile_intrin(const DequantTileSpec& s);

}  // namespace ingot::schedule
