// The panel products' shared schedule (see panel_product.h).
#include "schedule/rules/panel_product.h"

#include <algorithm>

#include "schedule/intrin/dot_tile.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/fma_strip.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/matmul.h"
#include "schedule/rules/matmul_symbolic_rows.h"
#include "schedule/rules/nest_utils.h"

namespace ingot::schedule {

namespace {

constexpr int64_t kAmxRows = 16, kAmxColumns = 16;  // an AMX C tile's

}  // namespace

bool panel_product_fits_amx(Schedule& s, int group) {
  std::vector<LoopRV> l = s.get_loops(s.get_block("matmul"));  // i, j, k
  if (l.size() != 3) return false;
  const int64_t K = loop_extent_of(s, l[2]), N = loop_extent_of(s, l[1]);
  // Rows known and at least one tile's: a few rows (a decoder's step) stream whole B tiles for
  // one row each, where the vector tiles read the panel once per row at the vector rate.
  if (any_symbolic_extent(s, {l[0]}) || loop_extent_of(s, l[0]) < kAmxRows) return false;
  return K > 0 && K % (kAmxRows * group) == 0 && N > 0 && N % kAmxColumns == 0;
}

void schedule_panel_product(Schedule& s, const RuleTarget& t, const std::string& b,
                            const std::string& bias, int group,
                            const std::function<TensorIntrin(int mr, int nr, int64_t steps)>& tile,
                            bool amx) {
  ProductKernelBlocks blocks = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // i, j, k
  const int lanes = t.isa.tile_lanes();
  const int64_t K = loop_extent_of(s, l[2]), N = loop_extent_of(s, l[1]);
  // 1. The panel width, then B and the bias in panels (re-laid out at compile time).
  std::vector<int64_t> widths = {amx ? kAmxColumns : lanes};
  for (int v = 2; v <= 3 && !amx; ++v)
    if (N > (v - 1) * lanes && dot_tile_max_rows(lanes, v * lanes) >= 4)
      widths.push_back(v * lanes);
  if (amx && N % (2 * kAmxColumns) == 0) widths.push_back(2 * kAmxColumns);
  int64_t default_nr = amx ? widths.back() : std::min<int64_t>(widths.back(), 2 * lanes);
  if (!amx && widths.back() == 3 * lanes && N % (3 * lanes) == 0) default_nr = 3 * lanes;
  const int nr = int(s.value(sample_choice(s, widths, default_nr)));
  std::vector<LoopRV> j = s.split_block_iter(c, l[1], nr);
  std::vector<LoopRV> k = s.split_block_iter(c, l[2], group);
  // [K, N] -> splits (K by G, N by NR) [K/G, G, N/NR, NR] -> [N/NR, K/G, NR, G].
  s.transform_layout(c, read_index(s, b), {0, group, 1, nr}, {2, 0, 3, 1});
  if (!bias.empty()) s.transform_layout(c, read_index(s, bias), {0, nr}, {});
  // 2. jo | io | jn | ir, jr, ko, ki by the micro-kernel, rows past the last whole tile one at
  //    a time.
  // AMX: tiles of 16 or 32 rows, 32 where there are that many.
  const int64_t amx_rows = amx && loop_extent_of(s, l[0]) >= 2 * kAmxRows ? 2 * kAmxRows : kAmxRows;
  auto [task, panel] = schedule_row_tiles(
      s, c, l[0], j[0], j[1], k[0], nr, amx ? 2 * kAmxRows : dot_tile_max_rows(lanes, nr),
      [&](int mr, int) {
        TensorIntrin rows = tile(mr, nr, K / group), one = tile(1, nr, K / group);
        std::pair names{rows.name, one.name};
        register_tensor_intrin(std::move(rows));
        register_tensor_intrin(std::move(one));
        return names;
      },
      /*prefetch=*/false,
      amx ? std::vector<int64_t>{kAmxRows, 2 * kAmxRows} : std::vector<int64_t>{}, amx_rows);
  // 3. The epilogue after each tile; the other blocks by the injective rule.
  if (!blocks.epilogue.empty()) {
    schedule_tile_epilogue(s, s.get_block(blocks.epilogue), panel);
    blocks.others.erase(std::find(blocks.others.begin(), blocks.others.end(), blocks.epilogue));
  }
  s.parallel(task);
  for (const std::string& name : blocks.others) schedule_injective_block(s, name, t.isa);
}

}  // namespace ingot::schedule
