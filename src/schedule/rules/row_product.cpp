// Rule row_product: a product block in row order (see row_product.h).
#include "schedule/rules/row_product.h"

#include <algorithm>

#include "schedule/ir_utils.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/matmul.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"

namespace ingot::schedule {

using namespace tir;

bool is_block_product(const PrimFunc& f) {
  int count = 0;
  std::optional<BlockInfo> info = find_block(f.body, "matmul", &count);
  if (!info || count != 1 || (info->parent != nullptr && info->parent->name_hint != "root"))
    return false;
  const Block* blk = info->block;
  const size_t n = blk->iter_vars.size();
  if (n < 3 || info->loops.size() != n || !blk->init.defined()) return false;
  for (size_t d = 0; d < n; ++d) {
    auto* loop = info->loops[d].as<For>();
    IterKind want = d + 1 == n ? IterKind::kReduce : IterKind::kSpatial;
    if (blk->iter_vars[d].kind != want || loop == nullptr || loop->kind != ForKind::kSerial ||
        info->br->iter_values[d].as<VarNode>() != loop->loop_var.node())
      return false;
  }
  return true;
}

void schedule_row_product(Schedule& s, const std::optional<CpuVectorIsa>& isa) {
  INGOT_ICHECK(is_block_product(s.func()), "row product rule: no product block in {}",
               s.func().name);
  // The kernel's other blocks: fusion's intermediates inlined, the epilogue pass found.
  auto [others, epilogue] = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // [batch..,] i, j, k
  const size_t n = l.size();
  s.reorder({l[n - 1], l[n - 2]});     // k outside j
  s.decompose_reduction(c, l[n - 1]);  // the row's init before its k loop
  if (!epilogue.empty()) s.reverse_compute_at(s.get_block(epilogue), l[n - 3]);
}

}  // namespace ingot::schedule
