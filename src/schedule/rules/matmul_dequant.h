// Default schedule of a weight-only quantized product (WQMatMul, lower/compute/weight_quant.cpp):
// block "matmul" at the root over i (the rows, constant or symbolic), j, k, float32,
// C[i, j] = bias[j] or 0, += A[i, k] * dequant(k, j), the integers Q ([K, N] int8, or [K/2, N]
// uint8 nibbles) and scales S [K/G, N] constant parameters.
//
// At one row (decoding) the product streams the integers once and is bound by memory, or by
// converting them; the threads must split the columns. The schedule, as rule
// symbolic_rows_matmul's (matmul_symbolic_rows.h):
// - Q and S re-laid out at compile time in NR-wide column panels (Q [ceil(N / NR), K, NR], S
//   [.., K / G, NR], zero padded; transform_layout), the bias row padded to whole panels;
// - jo | io | jn | [ir, jr, k]: parallel over blocks of panels, then the row tiles, the block's
//   panels and the MR x NR x K tile by the dequantizing micro-kernel (intrin/dequant_fma.h),
//   which scales each group's partial sums once and prefetches the panel's stream; the rows past
//   the last whole tile one at a time through its one-row form (PartialTile::kTailRows).
// Its choices (defaults in brackets): the panel width NR, the FMA tile's or twice it [the widest
// whose 4-row tile of partial sums fills at most half the vector registers: 64 columns on
// AVX-512, where each row's broadcast of A then feeds 4 vectors; 16 on AVX2 and NEON], the
// panels per parallel task [64 columns' worth], the tile's rows [4], the prefetch distance in
// bytes [4096].
#pragma once

#include <optional>
#include <string>

#include "schedule/rules/matmul.h"
#include "schedule/schedule.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

struct DequantProduct {
  std::string q, scales, bias;  // buffer names ("" bias: none)
  int bits = 8;
  int64_t group = 0;
};

// The product of `f` when it has that form.
std::optional<DequantProduct> match_dequant_matmul(const tir::PrimFunc& f);

// Rule kDequantMatmulRule's pattern.
bool is_dequant_matmul(const tir::PrimFunc& f);

// Its schedule (above); cfg gives the ISA and whether to run in parallel.
void schedule_dequant_matmul(Schedule& s, const MatmulConfig& cfg);

}  // namespace ingot::schedule
