// Default schedule of a product by bfloat16 weights (see bf16_matmul.h).
#include "schedule/rules/bf16_matmul.h"

#include <algorithm>

#include "schedule/intrin/bf16_dot.h"
#include "schedule/intrin/dot_tile.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/fma_strip.h"
#include "schedule/rules/injective.h"
#include "schedule/rules/matmul.h"
#include "schedule/rules/matmul_symbolic_rows.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

std::optional<BFloat16Product> match_bf16_matmul(const PrimFunc& f) {
  // [i, j | k], every extent constant, K even;
  // C[i, j] = C[i, j] + float32(A[i, k]) * float32(B[k, j]), C float32.
  std::optional<PanelProductBlock> m = match_panel_product(f, DataType::f32(), 2, true);
  if (!m) return std::nullopt;
  const BufferLoad* la = widened_operand(m->product->a, m->i, m->k, DataType::f32());
  const BufferLoad* lb = widened_operand(m->product->b, m->k, m->j, DataType::f32());
  if (!la || !lb || la->buffer->dtype != DataType::bf16() ||
      lb->buffer->dtype != DataType::bf16() || !is_constant_param(f, lb->buffer.get()))
    return std::nullopt;
  BFloat16Product p;
  p.a = la->buffer->name, p.b = lb->buffer->name;
  p.bias = m->bias;
  return p;
}

bool is_bf16_matmul(const PrimFunc& f) {
  return match_bf16_matmul(f).has_value();
}

void schedule_bf16_matmul(Schedule& s, const RuleTarget& t) {
  std::optional<BFloat16Product> p = match_bf16_matmul(s.func());
  INGOT_ICHECK(p.has_value(), "bfloat16 matmul rule: no such product in {}", s.func().name);
  INGOT_ICHECK(t.isa.arch == CpuVectorIsa::kX86, "bfloat16 matmul rule: x86 only");
  ProductKernelBlocks blocks = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // i, j, k
  const int lanes = t.isa.tile_lanes();
  const int64_t K = loop_extent_of(s, l[2]), N = loop_extent_of(s, l[1]);
  // 1. The panel width [2 vectors], then B and the bias in panels (re-laid out at compile time).
  std::vector<int64_t> widths = {lanes};
  for (int v = 2; v <= 3; ++v)
    if (N > (v - 1) * lanes && dot_tile_max_rows(lanes, v * lanes) >= 4)
      widths.push_back(v * lanes);
  const int64_t default_nr = std::min<int64_t>(widths.back(), 2 * lanes);
  const int nr = int(s.value(sample_choice(s, widths, default_nr)));
  std::vector<LoopRV> j = s.split_block_iter(c, l[1], nr);
  std::vector<LoopRV> k = s.split_block_iter(c, l[2], 2);
  // [K, N] -> splits (K by 2, N by NR) [K/2, 2, N/NR, NR] -> [N/NR, K/2, NR, 2].
  s.transform_layout(c, read_index(s, p->b), {0, 2, 1, nr}, {2, 0, 3, 1});
  if (!p->bias.empty()) s.transform_layout(c, read_index(s, p->bias), {0, nr}, {});
  // 2. jo | io | jn | ir, jr, ko, ki by the micro-kernel, rows past the last whole tile one at a
  //    time.
  auto [task, panel] = schedule_row_tiles(
      s, c, l[0], j[0], j[1], k[0], nr, dot_tile_max_rows(lanes, nr),
      [&](int mr, int) {
        BFloat16TileSpec spec{lanes, mr, nr, K / 2};
        BFloat16TileSpec one = spec;
        one.mr = 1;
        register_tensor_intrin(make_bf16_tile_intrin(spec));
        register_tensor_intrin(make_bf16_tile_intrin(one));
        return std::pair{bf16_tile_name(spec), bf16_tile_name(one)};
      },
      /*prefetch=*/false);
  // 3. The epilogue after each tile; the other blocks by the injective rule.
  finish_panel_product(s, std::move(blocks), task, panel, t.isa);
}

}  // namespace ingot::schedule
