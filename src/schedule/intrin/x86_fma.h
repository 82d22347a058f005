// x86 FP32 register-tile micro-kernels: C[MR, NR] += A[MR, KC] * Bp[KC, NR] with B packed in
// NR-wide panels (Bp[N/NR, K, NR]). The implementation keeps the MR x NR tile in a local
// accumulator (MR * NR / lanes vector registers after LLVM's SROA), broadcasts one A element
// per row and loads NR/lanes B vectors per k step: mul + add in tir, contracted by LLVM into
// vfmadd231ps on zmm (AVX-512, lanes 16) or ymm (AVX2, lanes 8) registers.
#pragma once

#include <optional>
#include <string>

#include "schedule/intrin/intrin.h"

namespace ingot::schedule {

struct FmaTileShape {
  int lanes = 16;  // floats per vector register: 16 (AVX-512) or 8 (AVX2)
  int mr = 8;      // rows of the tile
  int nr = 32;     // columns, a multiple of lanes (the packed panel width)
  int kc = 256;    // k steps per call
};

// "x86_avx512_fma_f32_8x32x256" / "x86_avx2_fma_f32_6x16x256".
std::string fma_tile_name(const FmaTileShape& s);
std::optional<FmaTileShape> parse_fma_tile_name(const std::string& name);
// The register-tile shape for a target's widest vector register (512: 8x32, else 6x16 AVX2).
FmaTileShape default_fma_tile(int vector_bits, int kc);
// Builds the intrinsic (description + implementation); register it to tensorize with it.
TensorIntrin make_fma_tile_intrin(const FmaTileShape& s);

}  // namespace ingot::schedule
