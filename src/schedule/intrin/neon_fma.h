// AArch64 NEON FP32 register tiles: members of the FMA register-tile family of x86_fma.h (same
// description and implementation, names "aarch64_neon_fma_f32_..."), on 4-lane vectors that
// LLVM's AArch64 backend turns into fmla v.4s on q registers.
//
// NEON has 32 vector registers but no memory operands and no broadcast-from-memory FMA: in the
// tile's k loop the MR x NR/4 accumulators, the NR/4 vectors of the B row and the A value of the
// row being updated (one ld1r / a lane of a loaded vector) must all be live in registers. So a
// tile of MR rows and NR columns needs MR * NR/4 + NR/4 + 1 <= 32 registers (x86 AVX2 at 16
// registers cannot hold the same tile; NEON can).
#pragma once

#include "schedule/intrin/x86_fma.h"

namespace ingot::schedule {

inline constexpr int kNeonLanes = 4;       // FP32 lanes of a 128-bit q register
inline constexpr int kNeonRegisters = 32;  // v0-v31

// Vector registers an MR x NR tile keeps live in its k loop: accumulators, B row, one A value.
int neon_tile_registers(int mr, int nr);
// The most rows (>= 1) an nr-column tile may have within the 32 registers.
int neon_max_tile_rows(int nr);
// The matmul tile: 6 rows x 16 columns (4 q registers per row): 24 accumulators + 4 B vectors +
// 1 A value = 29 of 32 registers. Its MR x NR equals the 128-bit x86 tile's, the layout the
// matmul lowering packs for a 128-bit target (A panels of 6 rows, B panels of 16 columns).
FmaTileShape neon_fma_tile(int kc);

}  // namespace ingot::schedule
