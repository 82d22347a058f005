// The schedule shared by the products tiled per column panel by a dot-product micro-kernel
// (rules/int8_matmul.h, rules/bf16_matmul.h), on block "matmul" over [i, j | k]:
// - the panel width NR sampled (1 to 3 vectors of the target's lanes where a tile of that width
//   keeps at least 4 rows in registers; default 2 vectors, 3 where N is whole 3-vector panels,
//   as the float rule on AVX2: each row's broadcast then feeds more products);
// - the depth in groups of G and B re-laid out at compile time into [N/NR, K/G, NR, G] panels
//   (one column's G values adjacent), the bias row padded to whole panels;
// - tiles of MR rows x NR columns over the whole depth by the micro-kernel `tile` builds (its
//   one-row form for the rows past the last whole tile): the rows rules' loops and choices
//   (panels per task, tile rows; no prefetch; rules/matmul_symbolic_rows.h);
// - parallel over groups of column panels, the kernel's epilogue after each tile, the other
//   blocks by the injective rule.
#pragma once

#include <functional>
#include <string>

#include "schedule/intrin/intrin.h"
#include "schedule/rules/default_rules.h"
#include "schedule/schedule.h"

namespace ingot::schedule {

// `b` and `bias` name the constant B and bias ("" when the init is zero); tile(mr, nr, steps)
// builds the micro-kernel of mr rows, nr columns and `steps` groups of G. With `amx` the tile is
// an AMX one (intrin/amx_tile.h): panels of 16 or 32 columns that divide N [32 where they
// do], tiles of 16 or 32 rows [32 where there are 32 rows, else 16].
void schedule_panel_product(Schedule& s, const RuleTarget& t, const std::string& b,
                            const std::string& bias, int group,
                            const std::function<TensorIntrin(int mr, int nr, int64_t steps)>& tile,
                            bool amx = false);
// Whether the product of block "matmul" fits the AMX tiles with groups of G: the depth whole
// 64-byte tile rows (K a multiple of 16 G), N a multiple of 16, at least 16 rows known at
// compile time (a few rows, as a decoder's step, keep the vector tiles: each would stream
// whole B tiles for one row).
bool panel_product_fits_amx(Schedule& s, int group);

}  // namespace ingot::schedule
