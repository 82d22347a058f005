// Default schedule for dense matmul: C[M, N] = A[M, K] * B[K, N] (optionally batched over A and
// C). The rule (schedule_dense_matmul) takes the product as lowering describes it and gives B
// NR-wide column panels, Bp[ceil(N / NR), K, NR] (zero padded), the layout the register-tile
// micro-kernel streams: a constant B by transform_layout (re-laid out once at compile time), a
// run-time B packed in the kernel; then schedule_packed_matmul schedules that form.
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
#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.h"
#include "support/channel_block.h"

namespace ingot::schedule {

struct MatmulConfig {
  int vector_bits = 512;  // the target's widest vector register (Target::vector_bits)
  // x86, or AArch64 (NEON, 128 bits whatever vector_bits says): the micro-kernel's ISA.
  CpuVectorIsa::Arch arch = CpuVectorIsa::kX86;
  int64_t mc = 128;  // rows of C per parallel task (multiple of MR; fewer for small M)
  int64_t nc = 256;  // columns per B block (multiple of NR)
  int64_t kc = 256;  // K slice: the micro-kernel's k loop
  // With row tasks and packed A: at most this many bytes of C rows and A slice per task (so C
  // stays in L2 across the K slices); 0: no bound.
  int64_t row_block_bytes = 0;
  // > 0: B's panels of this many vectors by default where N is whole such panels (else the
  // ISA's panel width).
  int wide_panel_vectors = 0;
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

// The register tile (MR x NR) the schedule uses for this config; NR is the panel width of B's
// panels.
int matmul_panel_width(const MatmulConfig& cfg);
// The dense rule's config for an ISA: the defaults, except on AVX2 (docs/perf.md, session 40)
// 3-vector panels where N is whole ones (a 4 x 24 register tile: 3 B loads and 4 broadcasts per
// 12 FMAs, where 6 x 16 needs 2 + 6), K slices of about 512 (matmul_k_block of it: 384 for
// K = 768, 512 for 1024 and 3072) and row blocks within kCoreCacheBudgetBytes.
MatmulConfig dense_matmul_config(const CpuVectorIsa& isa);
// The default panel width for a product of N = `n` columns under `cfg`.
int dense_panel_width(const MatmulConfig& cfg, int64_t n);
// The panel widths the dense rule samples: 1 to 4 vectors of the ISA whose tiles hold at least 4
// rows in its registers (x86; the default alone on AArch64).
std::vector<int64_t> matmul_panel_widths(const MatmulConfig& cfg);
// The register-tile heights it samples for nr columns: half the default limit
// (fma_max_tile_rows) up to what the register file holds (fma_register_tile_rows: 14 rows of 2
// AVX-512 vectors); by default the ISA's tile height where the registers hold it.
std::vector<int64_t> matmul_row_tiles(const MatmulConfig& cfg, int nr);
int matmul_row_tile(const MatmulConfig& cfg, int nr);
// The register tile's rows (MR) for this config: the panel height of packed A.
int matmul_row_tile(const MatmulConfig& cfg);

// Applies the default schedule to block `block` in the packed form (brought to it by
// schedule_dense_matmul; the tests build it directly, tests/common/packed_matmul.h): iter vars
// [b,] i or (ib, .., ir), jb, jr, k over B's panels; A's packing block `a_pack` and a run-time
// B's `b_pack`, when the kernel has them. Returns the parallel task loop when its tasks are
// blocks of rows (of C, of a batch), where an epilogue of the product can go at its end; else
// nullopt: tasks of columns (all rows in one block, or a single row block) would apply the
// epilogue to column blocks, leaving each row of the result split between the cores' caches
// while the kernels after a product (a LayerNormalization) read it by rows. Measured on BERT
// (M = 128: column tasks): its epilogue kernels 4-8% faster, its LayerNormalizations 2x slower,
// the model 1-2% slower; so the pass stays separate there, in row tasks. `product_rows`: the
// product's rows before A's panels pad them (0: the padded rows), which decide the default
// between row and column tasks.
std::optional<LoopRV> schedule_packed_matmul(Schedule& s, const std::string& block,
                                             const MatmulConfig& cfg,
                                             const std::string& a_pack = "A_pack",
                                             const std::string& b_pack = "B_pack",
                                             int64_t product_rows = 0);

// The dense product as lowering describes it (lower/compute/matmul_block.cpp): block "matmul" at
// the root, C[[b,] i, j] (init 0 or a bias row) += A[[b,] i, k] (or A[[b,] k, i]) * B[[b,] k, j]
// (or B[[b,] j, k]), float32, B constant or not (not both batched and constant). The rule
// (kDenseMatmulRule) matches kernels of this form.
bool is_dense_matmul(const tir::PrimFunc& f);
// Its schedule: the layouts (B in NR panels: a constant by transform_layout, re-laid out at
// compile time, a run-time B packed in the kernel by cache_read into a global scratch plus
// transform_layout; the bias padded to panels), A packed in MR-row panels when it has more than
// MR rows or is read transposed (cache_read + transform_layout), the block's columns and rows
// split to match (split_block_iter), then schedule_packed_matmul. The kernel's epilogue pass
// after the product (its fused bias, summand and activation: one in-place block reading C at
// the index it stores) goes into each parallel task right after its part of the product
// (reverse_compute_at, vectorized: one fusion mechanism with the convolutions' epilogues) when
// the tasks are blocks of rows (see schedule_packed_matmul); the kernel's other blocks (fusion's
// intermediates inlined first, an epilogue left in place) get the injective rule's schedule.
void schedule_dense_matmul(Schedule& s, const MatmulConfig& cfg);

// A product kernel's blocks besides its block `product` ("matmul", a conv's "conv"), after fusion's
// intermediates are inlined into their readers (inline_intermediates): the other top-level blocks
// in order, and among them the in-place epilogue pass (compute/epilogue.h epilogue_pass: C[i] =
// f(C[i], ..), a fused bias, summand, activation) when it is the one that reads C, alone in its
// nest and unpredicated, reading C only where it stores ("" otherwise), which the product rules
// place after their tiles or rows (reverse_compute_at).
struct ProductKernelBlocks {
  std::vector<std::string> others;
  std::string epilogue;
};
ProductKernelBlocks product_kernel_blocks(Schedule& s, const std::string& product = "matmul");

}  // namespace ingot::schedule
