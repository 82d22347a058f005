// Default schedule of an 8-bit integer product (see int8_matmul.h).
#include "schedule/rules/int8_matmul.h"

#include <algorithm>

#include "schedule/intrin/dot_tile.h"
#include "schedule/intrin/int8_dot.h"
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

std::optional<Int8Product> match_int8_matmul(const PrimFunc& f) {
  // [i, j | k], j and k constant (i may be symbolic), K whole groups of 4;
  // C[i, j] = C[i, j] + int32(A[i, k]) * int32(B[k, j]), C int32.
  std::optional<PanelProductBlock> m = match_panel_product(f, DataType::i32(), 4, false);
  if (!m) return std::nullopt;
  const BufferLoad* la = widened_operand(m->product->a, m->i, m->k, DataType::i32());
  const BufferLoad* lb = widened_operand(m->product->b, m->k, m->j, DataType::i32());
  if (!la || !lb || la->buffer->dtype.bits != 8 || lb->buffer->dtype != DataType::i8() ||
      !is_constant_param(f, lb->buffer.get()))
    return std::nullopt;
  Int8Product p;
  p.a = la->buffer->name, p.b = lb->buffer->name;
  p.a_signed = la->buffer->dtype.is_int();
  p.bias = m->bias;
  return p;
}

bool is_int8_matmul(const PrimFunc& f) {
  return match_int8_matmul(f).has_value();
}

void schedule_int8_matmul(Schedule& s, const RuleTarget& t) {
  std::optional<Int8Product> p = match_int8_matmul(s.func());
  INGOT_ICHECK(p.has_value(), "int8 matmul rule: no such product in {}", s.func().name);
  ProductKernelBlocks blocks = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // i, j, k
  const int lanes = t.isa.tile_lanes();
  const int group = t.int8_quads && !p->a_signed ? 4 : 2;
  const int64_t K = loop_extent_of(s, l[2]), N = loop_extent_of(s, l[1]);
  // 1. The panel width [2 vectors], then B and the bias in panels (re-laid out at compile time).
  std::vector<int64_t> widths = {lanes};
  for (int v = 2; v <= 3; ++v)
    if (N > (v - 1) * lanes && dot_tile_max_rows(lanes, v * lanes) >= 4)
      widths.push_back(v * lanes);
  // (AVX2: three vectors where N is whole such panels, as the float rule: each row's broadcast
  // feeds more products.)
  int64_t default_nr = std::min<int64_t>(widths.back(), 2 * lanes);
  if (widths.back() == 3 * lanes && N % (3 * lanes) == 0) default_nr = 3 * lanes;
  const int nr = int(s.value(sample_choice(s, widths, default_nr)));
  std::vector<LoopRV> j = s.split_block_iter(c, l[1], nr);
  std::vector<LoopRV> k = s.split_block_iter(c, l[2], group);
  // [K, N] -> splits (K by G, N by NR) [K/G, G, N/NR, NR] -> [N/NR, K/G, NR, G].
  s.transform_layout(c, read_index(s, p->b), {0, group, 1, nr}, {2, 0, 3, 1});
  if (!p->bias.empty()) s.transform_layout(c, read_index(s, p->bias), {0, nr}, {});
  // 2. jo | io | jn | ir, jr, ko, ki by the integer micro-kernel (the rows rules' loops and
  //    choices: panels per task, tile rows; no prefetch), rows past the last whole tile one at
  //    a time.
  auto [task, panel] = schedule_row_tiles(
      s, c, l[0], j[0], j[1], k[0], nr, dot_tile_max_rows(lanes, nr),
      [&](int mr, int) {
        Int8TileSpec spec{t.isa.arch, lanes, mr, nr, K / group, group, p->a_signed};
        Int8TileSpec one = spec;
        one.mr = 1;
        register_tensor_intrin(make_int8_tile_intrin(spec));
        register_tensor_intrin(make_int8_tile_intrin(one));
        return std::pair{int8_tile_name(spec), int8_tile_name(one)};
      },
      /*prefetch=*/false);
  // 3. The epilogue after each tile; the other blocks by the injective rule.
  finish_panel_product(s, std::move(blocks), task, panel, t.isa);
}

}  // namespace ingot::schedule
