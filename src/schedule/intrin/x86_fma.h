// FP32 register-tile micro-kernels: C[MR, NR] += A[MR, K...] * B[K..., NR], for x86 (AVX-512,
// AVX2) and AArch64 NEON (see neon_fma.h for the NEON tile choices), and their 8-bit and bfloat16
// forms for the blocked convolutions (FmaTileSpec::group, int8_products: int32 C; bf16). The tile's
// variables are i (rows, broadcast from A), j (columns, contiguous vectors of B and C) and one or
// more reduction variables k0, k1, ... (outermost first). Each operand's index is a linear
// combination of those variables per dimension (an FmaTileSpec), so the same kernel serves a
// matmul on panel-packed B (Bp[N/NR, K, NR]) and a direct convolution (A = the input image read
// at (ic, oh*s + kh, ow*s + kw), B = weights packed [OC/NR, KH, KW, IC, NR], C = blocked output).
//
// The implementation keeps the MR x NR tile in a local accumulator (MR * ceil(NR / lanes) vector
// registers after LLVM's SROA) across all reduction loops, broadcasts one A element per row (or
// loads a vector of A when A uses j: the elementwise, depthwise form, whose reduction loops
// inside the outermost one of extent > 1 are unrolled so that rows share their A loads) and
// loads the NR-wide B row per step: mul + add in tir, contracted by LLVM into vfmadd231ps on zmm
// (AVX-512, lanes 16) or ymm (AVX2, lanes 8), or fmla on 128-bit q registers (NEON, lanes 4).
// A column count that is not a multiple of the lanes ends with one narrower vector. The ISA is
// part of the kernel's name (and so of traces): the body is the same, the lanes and the tile
// shape chosen for the register file are not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedule/intrin/intrin.h"
#include "support/channel_block.h"

namespace ingot::schedule {

// The matmul layout: C[i, j] += A[i, k] * Bp[0, k, j] with one reduction loop of kc steps.
struct FmaTileShape {
  int lanes = 16;  // floats per vector register: 16 (AVX-512), 8 (AVX2) or 4 (NEON)
  int mr = 8;      // rows of the tile
  int nr = 32;     // columns, a multiple of lanes (the packed panel width)
  int kc = 256;    // k steps per call
  CpuVectorIsa::Arch arch = CpuVectorIsa::kX86;  // x86 (lanes 16 or 8) or AArch64 (lanes 4)
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
  CpuVectorIsa::Arch arch = CpuVectorIsa::kX86;
  // A uses i and k, B uses k and j, C uses i and j, with j only in their last dimension and with
  // coefficient 1 (contiguous vectors). A may use j too (same rule): then each step multiplies
  // a vector of A elementwise instead of broadcasting one element per row (a depthwise tile:
  // C[i, j] += A[i, k..., j] * B[k..., j]).
  FmaOperand a, b, c;
  // > 0: lane groups of this width (a divisor of the lanes; A does not use j): A's last
  // dimension is one reduction variable of extent a_group plus floor(j / a_group) * a_group, so
  // each column reads its own group's element (a grouped conv whose groups are narrower than a
  // vector: C[i, j] += A[i, k..., floor(j / g) * g + kg] * B[k..., kg, j]). The implementation
  // loads the vector of A at the tile's lanes once and shuffles each group's element over the
  // group's lanes, with that variable and the reduction loops inside the outermost one of
  // extent > 1 unrolled, so shuffles of the same A vector are built once (LLVM CSE).
  int a_group = 0;
  // > 1: the columns are `col_blocks` blocks of nr contiguous columns each, at any strides: a
  // further tile variable jb (0 .. col_blocks - 1) follows the reduction variables in each
  // operand's coefficient rows (B and C may use it in any dimension but the last, A not at all),
  // and the description's loops are i, jb, j, k... (a convolution tile over several output
  // channel blocks: C[i, jb, j] of Y[n, ocb + jb, oh, ow + i, j], B of Wp[ocb + jb, ..., j]).
  // Each row's broadcast A element then feeds col_blocks * ceil(nr / lanes) accumulators. Not
  // with lane groups or an A that uses j.
  int col_blocks = 1;
  // > 0: an 8-bit dot tile (rules/conv2d.h on a uint8 / int8 convolution): A uint8 (int8 with
  // a_signed), B int8, C int32 accumulators, C += int32(A) * int32(B). The last reduction
  // variable g has extent `group` (4: uint8 x int8 quads, VPDPBUSD; 2: int16 pairs, VPMADDWD)
  // and indexes A's and B's last dimensions with coefficient 1 (nothing else does), j then
  // B's next-to-last dimension: G bytes of one column adjacent. Each step broadcasts a row's G
  // bytes of A and takes the loop-IR dot_i32 with the panel's lanes x G bytes per accumulator
  // vector (codegen/llvm/int_dot.cpp), as schedule/intrin/int8_dot.h's tiles do. Not with lane
  // groups, an A that uses j or a prefetch; the columns whole vectors.
  int group = 0;
  bool a_signed = false;
  // With group 2: a bfloat16 dot tile instead (rules/conv2d.h on a conv of bfloat16 products):
  // A and B bfloat16, C float32, C += float(A) * float(B); each step broadcasts a row's pair of
  // A and takes the loop-IR dot_bf16 with the panel's lanes x 2 values per accumulator vector
  // (codegen/llvm/bf16_dot.cpp: VDPBF16PS where the target has AVX512-BF16).
  bool bf16 = false;
  // With a uint8 x int8 quad (group 4) or bfloat16 (group 2) dot tile: AMX tiles instead of
  // vectors (intrin/amx_tile.h, amx_dot_tile_impl): rows = pixels in 16-row tiles (mr up to
  // 32), columns 16, 32 or 48 (whole C tiles), one column block, A's next-to-last reduction
  // variable (its groups along the row, q of them) A's last dimension with coefficient G, so a
  // tile row of A is min(q, 16) * G contiguous elements (q at most 16 or a multiple of it); the
  // tile's remaining reduction loops run around TDPBUSD / TDPBF16PS steps. Named
  // "x86_amx_dot_..." (lanes 16). Where the target has no AMX, codegen emulates the tiles.
  bool amx = false;
  // 8-bit products without groups (the depthwise conv's elementwise form, rules/
  // depthwise_conv_nchwc.h): A uint8 / int8 (a_signed), B int8, C int32, each product
  // int32(A) * int32(B) of widened vectors, added in int32. Not with group, lane groups or a
  // prefetch.
  bool int8_products = false;
  // > 0: each reduction step first prefetches the B row this many bytes ahead of the one it
  // reads (a multiple of 64, one cache line per 64 bytes of the row), along B's flat stream: for
  // a matrix-vector product over B's panels, memory-bound, whose stream the hardware prefetchers
  // of some machines (VMs among them) do not run ahead of far enough. A prefetch never faults,
  // so the lines past B's end need no clamp. Not with column blocks.
  int prefetch = 0;
};

// The (arch, lanes) of a kernel name's "<arch>_<isa>" prefix ("x86", "avx512" -> x86, 16;
// "x86", "avx2" -> 8; "aarch64", "neon" -> 4), false if unknown: shared by the micro-kernel
// families' name parsers (here and dequant_fma.h).
bool parse_isa(const std::string& arch, const std::string& isa, CpuVectorIsa::Arch* a, int* lanes);

// Reduction steps per iteration of a plain FMA tile's innermost reduction loop (at most: the
// largest power of two up to it that divides the loop's extent).
inline constexpr int64_t kTileStepsPerIteration = 8;

// The spec of the matmul layout.
FmaTileSpec gemm_tile_spec(const FmaTileShape& s);

// Names: "x86_avx512_fma_f32_8x32x256" / "x86_avx2_fma_f32_6x16x256" /
// "aarch64_neon_fma_f32_6x16x256" for the matmul layout;
// "x86_avx512_fma_f32_7x32_k3x3x64_a<dims>_b<dims>_c<dims>" in general (an AMX dot tile
// "x86_amx_dot_..."), where <dims> lists each
// dimension's coefficients joined by '.', dimensions joined by ',', and "_g<width>" after them
// with lane groups (a_group), "_j<blocks>" with column blocks (col_blocks), "_p<bytes>" with a
// prefetch; an 8-bit dot tile "x86_avx512_dot_u8i8g4_7x32_k..." (A's type, B's, the group), a
// bfloat16 one "x86_avx512_dot_bf16g2_7x32_k...", 8-bit
// products "x86_avx512_mul_u8i8_6x32_k...". The
// prefix is the ISA's (CpuVectorIsa::kernel_prefix): x86 by lanes (16 avx512, 8 avx2), AArch64
// "aarch64_neon".
std::string fma_tile_name(const FmaTileShape& s);
std::string fma_tile_name(const FmaTileSpec& s);
std::optional<FmaTileShape> parse_fma_tile_name(const std::string& name);
std::optional<FmaTileSpec> parse_fma_tile_spec(const std::string& name);
// The register-tile shape for an x86 target's widest vector register (512: 8x32, else 6x16 AVX2).
FmaTileShape default_fma_tile(int vector_bits, int kc);
// The register-tile shape for a CPU ISA: x86 as above, NEON neon_fma_tile (6x16, 4 lanes). Its
// MR x NR equals the x86 tile of the same vector width, so the packed layouts (which follow the
// width) fit either.
FmaTileShape default_fma_tile(const CpuVectorIsa& isa, int kc);
// The most rows a tile of nr columns may have on this ISA: x86 8 (the B row can be a memory
// operand of vfmadd231ps), 12 for one-vector rows on AVX-512 (more accumulators than the FMA
// latency needs); NEON what fits its 32 registers (neon_max_tile_rows), at most 8.
int fma_max_tile_rows(const CpuVectorIsa& isa, int nr);
// The most rows a tile of nr columns can have at all: what the register file holds beside one
// B vector per column vector and the broadcast (32 registers on AVX-512 and NEON: 14, 9, 6 rows
// for 2, 3, 4 vectors; 16 on AVX2: 6, 4, 3), at most 14 and never fewer than
// fma_max_tile_rows. The tuner's range: taller tiles load B fewer times per FMA (one Sapphire
// Rapids core, bench/fma_tile_shapes' gemm512 tiles over 256-deep L1 panels: 8x2 82% of the
// FMA peak, 12x2 and 14x2 84%), but they cut M into fewer, coarser row tasks.
int fma_register_tile_rows(const CpuVectorIsa& isa, int nr);
// The index of an operand at tile variable values `vars` (i, j, k..., [jb]).
std::vector<tir::Expr> fma_operand_index(const FmaOperand& o, const std::vector<tir::Expr>& vars);
// Why a spec cannot be built ("" when it can).
std::string fma_tile_problem(const FmaTileSpec& s);
// Builds the intrinsic (description + implementation); register it to tensorize with it.
// InternalError if the spec breaks the rules above.
TensorIntrin make_fma_tile_intrin(const FmaTileShape& s);
TensorIntrin make_fma_tile_intrin(const FmaTileSpec& s);

}  // namespace ingot::schedule
