// x86 FP32 register-tile micro-kernels: C[MR, NR] += A[MR, K...] * B[K..., NR]. The tile's
// variables are i (rows, broadcast from A), j (columns, contiguous vectors of B and C) and one or
// more reduction variables k0, k1, ... (outermost first). Each operand's index is a linear
// combination of those variables per dimension (an FmaTileSpec), so the same kernel serves a
// matmul on panel-packed B (Bp[N/NR, K, NR]) and a direct convolution (A = the input image read
// at (ic, oh*s + kh, ow*s + kw), B = weights packed [OC/NR, KH, KW, IC, NR], C = blocked output).
//
// The implementation keeps the MR x NR tile in a local accumulator (MR * ceil(NR / lanes) vector
// registers after LLVM's SROA) across all reduction loops, broadcasts one A element per row and
// loads the NR-wide B row per step: mul + add in tir, contracted by LLVM into vfmadd231ps on zmm
// (AVX-512, lanes 16) or ymm (AVX2, lanes 8). A column count that is not a multiple of the lanes
// ends with one narrower vector.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedule/intrin/intrin.h"

namespace ingot::schedule {

// The matmul layout: C[i, j] += A[i, k] * Bp[0, k, j] with one reduction loop of kc steps.
struct FmaTileShape {
  int lanes = 16;  // floats per vector register: 16 (AVX-512) or 8 (AVX2)
  int mr = 8;      // rows of the tile
  int nr = 32;     // columns, a multiple of lanes (the packed panel width)
  int kc = 256;    // k steps per call
};

// Per dimension of an operand: the coefficient of each tile variable (i, j, k0, k1, ...).
struct FmaOperand {
  std::vector<std::vector<int64_t>> dims;
};

struct FmaTileSpec {
  int lanes = 16;
  int mr = 8;
  int nr = 32;
  std::vector<int64_t> k;  // reduction extents, outermost first
  // A uses i and k only; B uses k and j, C uses i and j, with j only in their last dimension and
  // with coefficient 1 (contiguous vectors).
  FmaOperand a, b, c;
};

// The spec of the matmul layout.
FmaTileSpec gemm_tile_spec(const FmaTileShape& s);

// Names: "x86_avx512_fma_f32_8x32x256" / "x86_avx2_fma_f32_6x16x256" for the matmul layout;
// "x86_avx512_fma_f32_7x32_k3x3x64_a<dims>_b<dims>_c<dims>" in general, where <dims> lists each
// dimension's coefficients joined by '.', dimensions joined by ','.
std::string fma_tile_name(const FmaTileShape& s);
std::string fma_tile_name(const FmaTileSpec& s);
std::optional<FmaTileShape> parse_fma_tile_name(const std::string& name);
std::optional<FmaTileSpec> parse_fma_tile_spec(const std::string& name);
// The register-tile shape for a target's widest vector register (512: 8x32, else 6x16 AVX2).
FmaTileShape default_fma_tile(int vector_bits, int kc);
// Builds the intrinsic (description + implementation); register it to tensorize with it.
// InternalError if the spec breaks the rules above.
TensorIntrin make_fma_tile_intrin(const FmaTileShape& s);
TensorIntrin make_fma_tile_intrin(const FmaTileSpec& s);

}  // namespace ingot::schedule
