// Default schedule of a dense product over symbolic rows (see matmul_symbolic_rows.h).
#include "schedule/rules/matmul_symbolic_rows.h"

#include <algorithm>

#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/fma_strip.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

std::pair<LoopRV, LoopRV> schedule_row_tiles(Schedule& s, BlockRV c, LoopRV rows, LoopRV panels,
                                             LoopRV cols, LoopRV k, int nr, int max_rows,
                                             const RowTileIntrinsics& intrinsics,
                                             bool prefetch_choice,
                                             const std::vector<int64_t>& given_heights,
                                             int64_t default_height) {
  // The choices: panels per parallel task, the tile's rows, the prefetch distance.
  const int64_t n = loop_extent_of(s, panels);
  ExprRV per_task = sample_choice(s, powers_of_two_upto(n, n),
                                  std::clamp<int64_t>(kRowsRuleColumnsPerTask / nr, 1, n));
  std::vector<int64_t> heights = given_heights;
  for (int r = 1; given_heights.empty() && r <= max_rows; ++r) heights.push_back(r);
  if (given_heights.empty()) default_height = std::min(kRowsRuleTileRows, max_rows);
  const int mr = int(s.value(sample_choice(s, heights, default_height)));
  const int prefetch =
      prefetch_choice ? int(s.value(sample_choice(s, {0, 1024, 2048, 4096}, 4096))) : 0;
  // jo | io | jn | ir, jr, k; C's init before the tile, vectorized.
  std::vector<LoopRV> jt = s.split(panels, {std::nullopt, per_task});
  std::vector<LoopRV> it = s.split(rows, {std::nullopt, int64_t(mr)});
  s.reorder({jt[0], it[0], jt[1], it[1], cols, k});
  BlockRV init = s.decompose_reduction(c, it[1]);
  s.vectorize(s.get_loops(init).back());
  // The tile by the micro-kernel; the rows past the last whole tile one at a time. One-row tiles
  // have no rows past the last (a split by 1 leaves no row mask): a column tail on a scratch tile.
  auto [tile, one_row] = intrinsics(mr, prefetch);
  if (mr == 1)
    s.tensorize(s.blockize(it[1]), tile, PartialTile::kScratch);
  else
    s.tensorize(s.blockize(it[1]), tile, one_row, PartialTile::kTailRows);
  return {jt[0], jt[1]};
}

bool is_symbolic_rows_matmul(const PrimFunc& f) {
  return match_dense(f, true).has_value();
}

void schedule_symbolic_rows_matmul(Schedule& s, const MatmulConfig& cfg) {
  std::optional<DenseProduct> d = match_dense(s.func(), true);
  INGOT_ICHECK(d.has_value(), "symbolic-rows matmul rule: no such product in {}", s.func().name);
  // The kernel's other blocks: fusion's intermediates inlined, the epilogue pass found.
  auto [others, epilogue] = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // i, j, k
  const int64_t K = loop_extent_of(s, l[2]);
  FmaTileShape t = default_fma_tile(cfg.isa(), int(K));
  // 1. B in NR-wide panels, re-laid out at compile time; the bias row padded to whole panels.
  std::vector<LoopRV> j = s.split_block_iter(c, l[1], t.nr);
  panel_layout(s, c, d->b, 2, d->b_cols, d->b_depth, t.nr);
  if (!d->bias.empty()) s.transform_layout(c, read_index(s, d->bias), {d->bias_axis, t.nr}, {});
  // 2. The row tiles by the FMA micro-kernel, which prefetches B's stream.
  auto [task, panel] =
      schedule_row_tiles(s, c, l[0], j[0], j[1], l[2], t.nr, fma_max_tile_rows(cfg.isa(), t.nr),
                         [&](int mr, int prefetch) {
                           t.mr = mr;
                           FmaTileSpec spec = gemm_tile_spec(t);
                           spec.prefetch = prefetch;
                           FmaTileSpec one = spec;
                           one.mr = 1;
                           register_tensor_intrin(make_fma_tile_intrin(spec));
                           register_tensor_intrin(make_fma_tile_intrin(one));
                           return std::pair{fma_tile_name(spec), fma_tile_name(one)};
                         });
  // 3. The epilogue pass right after each tile of the product, on the tile's rows and columns
  //    (masked past the rows and the columns) while they are in cache; the other blocks by the
  //    injective rule.
  if (!epilogue.empty()) {
    schedule_tile_epilogue(s, s.get_block(epilogue), panel);
    others.erase(std::find(others.begin(), others.end(), epilogue));
  }
  if (cfg.parallel) s.parallel(task);
  for (const std::string& name : others) schedule_injective_block(s, name, cfg.isa());
}

}  // namespace ingot::schedule
