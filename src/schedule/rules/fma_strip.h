// Shared by the rules that compute a tile on the FMA register-tile micro-kernel: the block's
// multiply-add, an operand's layout read off its indices, and the blockize + tensorize of a
// strip whose last tile may be shorter.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "schedule/intrin/x86_fma.h"
#include "schedule/schedule.h"

namespace ingot::schedule {

// The parts of a block whose body is C[...] = C[...] + A[...] * B[...] (the store and the two
// loads of the product; either load may be widened by a Cast), or nullopt.
struct FmaUpdate {
  const tir::BufferStore* c = nullptr;
  const tir::BufferLoad* a = nullptr;
  const tir::BufferLoad* b = nullptr;
};
std::optional<FmaUpdate> fma_update(const tir::Block* block);

// Each index's coefficient in each tile variable (i, j, k...), read as linear forms; `skip`
// (when defined) is taken as 0 first (a lane group's floor(j / g) * g term, which the spec
// states as a_group). InternalError if an index is not linear in them.
FmaOperand fma_operand(const std::vector<tir::Expr>& indices, const std::vector<tir::Var>& vars,
                       const tir::Var& skip = tir::Var());

// Registers the tile's intrinsic, blockizes at `tile` (the loop of the tile's rows) and
// tensorizes; when `rows` (the strip's extent) is not a multiple of spec.mr, the last tile runs
// the same micro-kernel with the remaining rows.
void tensorize_fma_strip(Schedule& s, LoopRV tile, const FmaTileSpec& spec, int64_t rows);

// The in-place epilogue block after the tiles: computed under `anchor` (reverse_compute_at, while
// the tiles' output is in L1), its innermost loop vectorized. When it uses polynomial math (the
// exp of SiLU, the erf of GELU), its loops under `anchor` are outlined (Schedule::outline): in
// the tile's function the backend hoists the math's dozen constants out of every loop, and the
// tile's accumulators then spill inside its reduction loop (a 1x1 conv with SiLU ran 1.7x
// slower for it on AVX-512).
void schedule_tile_epilogue(Schedule& s, BlockRV epilogue, LoopRV anchor);

}  // namespace ingot::schedule
