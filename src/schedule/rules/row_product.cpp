// Rule row_product: a product block in row order (see row_product.h).
#include "schedule/rules/row_product.h"

#include <algorithm>

#include "schedule/ir_utils.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/matmul.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"

namespace ingot::schedule {

using namespace tir;

bool is_block_product(const PrimFunc& f) {
  return product_block_info(f).has_value();
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
  // On a CPU: the batch dims and rows in parallel (how many of them: a sampling instruction).
  if (isa) {
    std::vector<LoopRV> rows(l.begin(), l.end() - 2);
    parallelize_outer(s, rows, int(rows.size()), int(rows.size()));
  }
}

}  // namespace ingot::schedule
