// Default schedule for dense matmul: C[M, N] = A[M, K] * B[K, N] (optionally batched over A and
// C), with B given packed in NR-wide column panels, Bp[ceil(N / NR), K, NR] (zero padded), the
// layout the register-tile micro-kernel streams. Constant weights are packed once at compile
// time; make_pack_b / pack_b_panels build that layout.
//
// The schedule (BLIS loop order): parallel over MC-row blocks of C, then NC-column blocks, KC
// slices of K, NR panels, MR-row strips; the MR x NR x KC tile is blockized and tensorized with
// the FMA micro-kernel of the ISA (x86: AVX-512 or AVX2 by vector width; AArch64: NEON, see
// intrin/neon_fma.h); C is zeroed by the init block
// (decompose_reduction) before the K loop and accumulated in registers within a KC slice.
// With packed A and all rows in one block (M <= MC, e.g. a transformer's 128 tokens) the
// threads split the NR panels instead (a batched matmul with >= 4 batches: the batches), and
// each B micro-panel serves every row strip while it is in L1: (b,) jb | ko | ib | tile.
//
// The rule generates a design space: its choices are sampling instructions (rules/choice.h)
// whose given decisions are the defaults above, in this order: the K slice (matmul_k_block of
// 64..512), with packed A whether all rows form one block, then the column panels per block of
// B and the row panels (packed A) or, with A read in place, the register tile's rows (MR) and
// the row strips per parallel task. The untuned schedule takes
// the defaults; a tuner draws or forces others (Schedule::set_sampling_policy) and reruns it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "support/channel_block.h"

namespace ingot::schedule {

// An operand the kernel reads through a transposed view (a Transpose folded into the MatMul):
// the tensor has row-major shape `shape` and the product reads its transpose by `perm` (view
// dim d is tensor dim perm[d]). The view's leading dims flatten into the batch (or, for A
// without a batch, into M) as the plain operand's do. Empty: the operand as usual.
struct OperandLayout {
  std::vector<int64_t> shape, perm;
  bool empty() const { return perm.empty(); }
};

struct PackedMatmul {
  tir::Buffer A, Bp, C;  // and bias[ceil(N / NR) * NR] when built with_bias
  tir::Buffer bias;
  tir::Buffer Ap;       // with packed A: the scratch buffer of the panels
  tir::Buffer B;        // with pack_b: the run-time B[(batch,) K, N] (Bp is then its scratch)
  bool pack_b = false;  // A[(batch,) M, K], Bp[NB,
                        // K, NR], C[(batch,) M, N]
  int64_t batch = 0, M = 0, N = 0, K = 0;
  int nr = 0;
  int mr_packed_a = 0;  // > 0: A comes packed as Ap[(batch,) ceil(M / MR), K, MR]
  tir::PrimFunc func;   // params A, Bp, C; one block "C"
};

// The block-form matmul on packed B: block "C" with iter vars (vb,) vi, vjb, vjr, vk:
// C[(vb,) vi, vjb * NR + vjr] += A[(vb,) vi, vk] * Bp[vjb, vk, vjr], init 0, masked where
// vjb * NR + vjr >= N. batch = 0: unbatched. with_bias: the init is bias[vjb * NR + vjr] (a
// padded row added to every row of C; params A, Bp, bias, C).
// mr_packed_a > 0: a first block "A_pack" packs A in MR-row panels into the scratch parameter
// Ap[(b,) ceil(M / MR), K, MR] (zero padded), so the micro-kernel's broadcasts read one
// contiguous stream; block "C" reads Ap, its rows vib * MR + vir (iter vars (vb,) vib, vjb, vir,
// vjr, vk), masked past M. Params: A, Ap, Bp, (bias,) C. The schedule packs each panel block
// right before the tiles that read it (compute_at), while it is in cache.
// pack_b: B is a run-time value B[(b,) K, N] (batched like A when batch > 0), packed in the
// kernel by a block "B_pack" into the scratch Bp[(b,) N/NR, K, NR]. Params: A, [Ap,] [B,] Bp,
// [bias,] C.
// a_layout (needs mr_packed_a > 0) / b_layout (needs pack_b): A / the run-time B is a
// parameter of the layout's tensor shape, read by the packing block through the view.
PackedMatmul make_packed_matmul(int64_t M, int64_t N, int64_t K, int nr, int64_t batch = 0,
                                bool with_bias = false, int mr_packed_a = 0, bool pack_b = false,
                                const OperandLayout& a_layout = {},
                                const OperandLayout& b_layout = {});
// Host packing of A[M, K] into Ap[ceil(M / MR), K, MR].
std::vector<float> pack_a_panels(const float* A, int64_t M, int64_t K, int mr);

// Block form of the packing: Bp[jb, k, r] = B[k, jb * NR + r], 0 past column N.
tir::PrimFunc make_pack_b(int64_t K, int64_t N, int nr);
// The same on the host: row-major B[K, N] -> Bp[ceil(N / NR), K, NR].
std::vector<float> pack_b_panels(const float* B, int64_t K, int64_t N, int nr);

struct MatmulConfig {
  int vector_bits = 512;  // the target's widest vector register (Target::vector_bits)
  // x86, or AArch64 (NEON, 128 bits whatever vector_bits says): the micro-kernel's ISA.
  CpuVectorIsa::Arch arch = CpuVectorIsa::kX86;
  int64_t mc = 128;  // rows of C per parallel task (multiple of MR; fewer for small M)
  int64_t nc = 256;  // columns per B block (multiple of NR)
  int64_t kc = 256;  // K slice: the micro-kernel's k loop
  bool parallel = true;
  // With all rows in one block (M <= mc, A packed): parallel over column panels (or batches)
  // instead of row blocks.
  bool column_parallel = true;

  CpuVectorIsa isa() const {
    return arch == CpuVectorIsa::kAArch64 ? CpuVectorIsa::aarch64_neon()
                                          : CpuVectorIsa::x86(vector_bits);
  }
};

// The K slice the schedule uses: K itself when close to kc, else a divisor of K near kc
// (no masked slice), else kc.
int64_t matmul_k_block(int64_t K, int64_t kc);

// The register tile (MR x NR) the schedule uses for this config; NR is the panel width that
// make_packed_matmul / pack_b_panels must use.
int matmul_panel_width(const MatmulConfig& cfg);
// The register tile's rows (MR) for this config: the panel height of packed A.
int matmul_row_tile(const MatmulConfig& cfg);

// Applies the default schedule to block `block` (as built by make_packed_matmul, or brought to
// that form by schedule_dense_matmul; its A-packing block is `a_pack`).
void schedule_packed_matmul(Schedule& s, const std::string& block, const MatmulConfig& cfg,
                            const std::string& a_pack = "A_pack",
                            const std::string& b_pack = "B_pack");

// The dense product as lowering describes it (lower/compute/matmul_block.cpp): block "matmul" at
// the root, C[[b,] i, j] (init 0 or a bias row) += A[[b,] i, k] (or A[[b,] k, i]) * B[[b,] k, j]
// (or B[[b,] j, k]), float32, B constant or not (not both batched and constant). The rule
// (kDenseMatmulRule) matches kernels of this form.
bool is_dense_matmul(const tir::PrimFunc& f);
// Its schedule: the layouts (B in NR panels: a constant by transform_layout, re-laid out at
// compile time, a run-time B packed in the kernel by cache_read into a global scratch plus
// transform_layout; the bias padded to panels), A packed in MR-row panels when it has more than
// MR rows or is read transposed (cache_read + transform_layout), the block's columns and rows
// split to match (split_block_iter), then schedule_packed_matmul. Other blocks of the kernel (an
// epilogue pass after the product) are scheduled by the injective rule first.
void schedule_dense_matmul(Schedule& s, const MatmulConfig& cfg);

}  // namespace ingot::schedule
