// Default schedule for a dense product whose row count is symbolic (a sequence length: the
// projections of a decoder, one row per token while decoding) over one constant 2-D B:
// C[i, j] = bias[j] or 0, += A[i, k] * B[k, j] (or B[j, k]), i in [0, M) with M known at run
// time only (lower/compute/matmul_block.cpp describes it so).
//
// At one row the product streams B once and is bound by memory; the threads must split the
// columns, not the rows. The schedule:
// - B re-laid out at compile time in NR-wide column panels, Bp[ceil(N / NR), K, NR] (zero
//   padded; transform_layout), the bias row padded to whole panels, so a task streams contiguous
//   panels;
// - jo | io | jn | [ir, jr, k]: parallel over blocks of column panels (jo), then the row tiles
//   (io, ceil(M / MR) of them, the symbolic split masking the rows past M), the block's panels
//   (jn), and the MR x NR x K register tile computed by the FMA micro-kernel, which prefetches
//   B's stream ahead of its reads; C starts from its init before the tile;
// - the rows past the last whole tile run one at a time through the 1 x NR micro-kernel
//   (PartialTile::kTailRows), each reading the panel from cache: decoding's single row is such
//   a tile;
// - the kernel's epilogue pass (a fused summand or activation: product_kernel_blocks) right after
//   each tile, on its rows and columns (masked past M and N), by reverse_compute_at; other
//   blocks by the injective rule.
// Its choices (sampling instructions, rules/choice.h; defaults in brackets): the column panels
// per parallel task [64 columns' worth], the tile's rows MR [4: short prompts' tails] and the
// prefetch distance in bytes [4096: measured best on the 2-vCPU guest of docs/perf.md, whose
// hardware prefetchers do not run far enough ahead of one stream].
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "schedule/rules/matmul.h"
#include "schedule/schedule.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

// The defaults of the rules over a row count that may be symbolic (this one, dequant_matmul):
// - the column panels one parallel task computes: 64 columns' worth, so a one-row product over a
//   768-wide B runs 12 tasks (enough to balance the threads) of one contiguous stream each;
// - the tile's rows: 4, not the ISA's 8 (AVX-512). The rows past the last whole tile run one at
//   a time, each streaming the panel again, so a short prompt pays for a tall tile: on the
//   2-vCPU guest a 5-token GPT-2 prefill took 18 ms at 4 rows against 20-23 ms at 8, a 32-token
//   one 44-45 ms against 42-46 ms (docs/perf-runs/symbolic_rows_mr-20261206.txt).
inline constexpr int64_t kRowsRuleColumnsPerTask = 64;
inline constexpr int kRowsRuleTileRows = 4;

// The loops both rows rules (this one, dequant_matmul) give their product block `c` once its
// operands are in NR-wide panels: `rows` (i, maybe symbolic), `panels` and `cols` (j split by NR)
// and `k`. Samples the panels per parallel task [64 columns' worth], the tile's rows (1 to
// max_rows) [4] and the prefetch distance [4096 bytes]; orders jo | io | jn | [ir, jr, k] with
// C's init before the tile, vectorized; tensorizes the tile with the intrinsics that
// `intrinsics(mr, prefetch)` registers (the MR-row one, then the one-row one for the rows past
// the last whole tile: PartialTile::kTailRows), and returns (jo, jn): the loop to run in
// parallel and the one after whose iterations a tile is complete. Loops below k (a depth split
// in groups, rule int8_matmul) stay inside the tile. With `prefetch` false the distance is not a
// choice (a tile that does not prefetch) and intrinsics() receives 0. `heights`, when given,
// replaces 1 .. max_rows as the rows' choices, `default_height` (one of them) the default (the
// AMX tiles' 16 or 32).
using RowTileIntrinsics = std::function<std::pair<std::string, std::string>(int mr, int prefetch)>;
std::pair<LoopRV, LoopRV> schedule_row_tiles(Schedule& s, BlockRV c, LoopRV rows, LoopRV panels,
                                             LoopRV cols, LoopRV k, int nr, int max_rows,
                                             const RowTileIntrinsics& intrinsics,
                                             bool prefetch = true,
                                             const std::vector<int64_t>& heights = {},
                                             int64_t default_height = 0);

// Rule kSymbolicRowsMatmulRule's pattern: block "matmul" at the root over i (symbolic extent),
// j, k, float32, B a 2-D constant parameter (rules/dense_product.h).
bool is_symbolic_rows_matmul(const tir::PrimFunc& f);

// Its schedule (above); cfg gives the ISA and whether to run in parallel.
void schedule_symbolic_rows_matmul(Schedule& s, const MatmulConfig& cfg);

}  // namespace ingot::schedule
