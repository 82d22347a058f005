// Default schedule of a product by bfloat16 weights (see bf16_matmul.h).
#include "schedule/rules/bf16_matmul.h"

#include <algorithm>

#include "schedule/intrin/bf16_dot.h"
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

namespace {

// The bfloat16 buffer a widening cast loads at indices (p, q) (each a plain var), or null.
const BufferLoad* widened_load(const Expr& e, const Var& p, const Var& q) {
  auto* c = e.as<Cast>();
  auto* l = c ? c->value.as<BufferLoad>() : nullptr;
  if (c == nullptr || c->dtype != DataType::f32() || l == nullptr ||
      l->buffer->dtype != DataType::bf16() || l->indices.size() != 2 ||
      l->indices[0].as<VarNode>() != p.node() || l->indices[1].as<VarNode>() != q.node())
    return nullptr;
  return l;
}

}  // namespace

std::optional<BFloat16Product> match_bf16_matmul(const PrimFunc& f) {
  // [i, j | k], every extent constant, K even.
  std::optional<BlockInfo> info = product_block_info(f);
  if (!info || info->block->iter_vars.size() != 3) return std::nullopt;
  const Block* blk = info->block;
  int64_t k_extent = 0;
  if (!is_const_int(info->loops[0].as<For>()->extent) ||
      !is_const_int(info->loops[1].as<For>()->extent) ||
      !is_const_int(info->loops[2].as<For>()->extent, &k_extent) || k_extent % 2 != 0)
    return std::nullopt;
  const Var vi = blk->iter_vars[0].var, vj = blk->iter_vars[1].var, vk = blk->iter_vars[2].var;
  // C[i, j] = C[i, j] + float32(A[i, k]) * float32(B[k, j]), C float32.
  auto* st = blk->body.as<BufferStore>();
  if (st == nullptr || st->buffer->dtype != DataType::f32() || st->indices.size() != 2 ||
      st->indices[0].as<VarNode>() != vi.node() || st->indices[1].as<VarNode>() != vj.node())
    return std::nullopt;
  auto* add = st->value.as<Add>();
  auto* self = add ? add->a.as<BufferLoad>() : nullptr;
  auto* mul = add ? add->b.as<Mul>() : nullptr;
  if (!self || self->buffer.get() != st->buffer.get() || !mul) return std::nullopt;
  const BufferLoad* la = widened_load(mul->a, vi, vk);
  const BufferLoad* lb = widened_load(mul->b, vk, vj);
  if (!la || !lb || !is_constant_param(f, lb->buffer.get())) return std::nullopt;
  BFloat16Product p;
  p.a = la->buffer->name, p.b = lb->buffer->name;
  // The init: zero or the constant bias row bias[j].
  auto* init = blk->init.as<BufferStore>();
  if (init == nullptr) return std::nullopt;
  if (auto* bias = init->value.as<BufferLoad>()) {
    if (bias->buffer->dtype != DataType::f32() || bias->indices.size() != 1 ||
        bias->indices[0].as<VarNode>() != vj.node() || !is_constant_param(f, bias->buffer.get()))
      return std::nullopt;
    p.bias = bias->buffer->name;
  } else if (!is_const_int(init->value) && !init->value.as<FloatImm>()) {
    return std::nullopt;
  }
  return p;
}

bool is_bf16_matmul(const PrimFunc& f) {
  return match_bf16_matmul(f).has_value();
}

void schedule_bf16_matmul(Schedule& s, const RuleTarget& t) {
  std::optional<BFloat16Product> p = match_bf16_matmul(s.func());
  INGOT_ICHECK(p.has_value(), "bfloat16 matmul rule: no such product in {}", s.func().name);
  INGOT_ICHECK(t.isa.arch == CpuVectorIsa::kX86, "bfloat16 matmul rule: x86 only");
  auto [others, epilogue] = product_kernel_blocks(s);
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // i, j, k
  const int lanes = t.isa.tile_lanes();
  const int64_t K = loop_extent_of(s, l[2]), N = loop_extent_of(s, l[1]);
  // 1. The panel width [2 vectors], then B and the bias in panels (re-laid out at compile time).
  std::vector<int64_t> widths = {lanes};
  for (int v = 2; v <= 3; ++v)
    if (N > (v - 1) * lanes && bf16_max_tile_rows(lanes, v * lanes) >= 4)
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
      s, c, l[0], j[0], j[1], k[0], nr, bf16_max_tile_rows(lanes, nr),
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
  if (!epilogue.empty()) {
    schedule_tile_epilogue(s, s.get_block(epilogue), panel);
    others.erase(std::find(others.begin(), others.end(), epilogue));
  }
  s.parallel(task);
  for (const std::string& name : others) schedule_injective_block(s, name, t.isa);
}

}  // namespace ingot::schedule
