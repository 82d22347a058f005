// Default schedule of a weight-only quantized product (see matmul_dequant.h).
#include "schedule/rules/matmul_dequant.h"

#include <algorithm>

#include "schedule/intrin/dequant_fma.h"
#include "schedule/intrin/x86_fma.h"
#include "schedule/ir_utils.h"
#include "schedule/rules/choice.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/matmul_symbolic_rows.h"
#include "schedule/rules/nest_utils.h"
#include "support/error.h"
#include "tir/dequantize.h"
#include "tir/op.h"
#include "tir/structural_equal.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// The Q load of a dequantized element: the first load of an integer buffer in it.
class IntegerLoad : public IRVisitor {
 public:
  const BufferLoad* found = nullptr;
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    if (found == nullptr && !op->buffer->dtype.is_float()) found = op;
    IRVisitor::visit_BufferLoad(op, e);
  }
};
const BufferLoad* integer_load(const Expr& e) {
  IntegerLoad v;
  v.visit(e);
  return v.found;
}

}  // namespace

std::optional<DequantProduct> match_dequant_matmul(const PrimFunc& f) {
  // [i, j | k], j and k constant (i may be symbolic).
  std::optional<BlockInfo> info = product_block_info(f);
  if (!info || info->block->iter_vars.size() != 3) return std::nullopt;
  const Block* blk = info->block;
  for (size_t d = 1; d < 3; ++d)
    if (!is_const_int(info->loops[d].as<For>()->extent)) return std::nullopt;
  const Var vi = blk->iter_vars[0].var, vj = blk->iter_vars[1].var, vk = blk->iter_vars[2].var;
  // C[i, j] = C[i, j] + A[i, k] * dequant(k, j), all float32.
  auto* st = blk->body.as<BufferStore>();
  if (st == nullptr || st->buffer->dtype != DataType::f32() || st->indices.size() != 2 ||
      st->indices[0].as<VarNode>() != vi.node() || st->indices[1].as<VarNode>() != vj.node())
    return std::nullopt;
  auto* add = st->value.as<Add>();
  auto* self = add ? add->a.as<BufferLoad>() : nullptr;
  auto* mul = add ? add->b.as<Mul>() : nullptr;
  auto* la = mul ? mul->a.as<BufferLoad>() : nullptr;
  auto* scaled = mul ? mul->b.as<Mul>() : nullptr;
  auto* ls = scaled ? scaled->b.as<BufferLoad>() : nullptr;
  if (!self || self->buffer.get() != st->buffer.get() || !la || !ls ||
      la->buffer->dtype != DataType::f32() || la->indices.size() != 2 ||
      la->indices[0].as<VarNode>() != vi.node() || la->indices[1].as<VarNode>() != vk.node())
    return std::nullopt;
  const BufferLoad* lq = integer_load(mul->b);
  auto* group_div = ls->indices.size() == 2 ? ls->indices[0].as<FloorDiv>() : nullptr;
  int64_t group = 0;
  if (lq == nullptr || group_div == nullptr || !is_const_int(group_div->b, &group) ||
      !is_constant_param(f, lq->buffer.get()) || !is_constant_param(f, ls->buffer.get()))
    return std::nullopt;
  DequantProduct d;
  d.bits = lq->buffer->dtype == DataType::i8() ? 8 : 4;
  d.group = group;
  // The element exactly as the micro-kernel describes it.
  if (!structural_equal(mul->b, dequantized_weight(d.bits, group, Buffer(lq->buffer),
                                                   Buffer(ls->buffer), vk, vj)))
    return std::nullopt;
  d.q = lq->buffer->name, d.scales = ls->buffer->name;
  // The init: zero or the bias row bias[j].
  auto* init = blk->init.as<BufferStore>();
  if (init == nullptr) return std::nullopt;
  if (auto* bias = init->value.as<BufferLoad>()) {
    if (bias->indices.size() != 1 || bias->indices[0].as<VarNode>() != vj.node() ||
        !is_constant_param(f, bias->buffer.get()))
      return std::nullopt;
    d.bias = bias->buffer->name;
  } else if (!init->value.as<FloatImm>()) {
    return std::nullopt;
  }
  return d;
}

bool is_dequant_matmul(const PrimFunc& f) {
  return match_dequant_matmul(f).has_value();
}

void schedule_dequant_matmul(Schedule& s, const MatmulConfig& cfg) {
  std::optional<DequantProduct> d = match_dequant_matmul(s.func());
  INGOT_ICHECK(d.has_value(), "dequant matmul rule: no such product in {}", s.func().name);
  const CpuVectorIsa isa = cfg.isa();
  BlockRV c = s.get_block("matmul");
  std::vector<LoopRV> l = s.get_loops(c);  // i, j, k
  const int64_t K = loop_extent_of(s, l[2]);
  const int lanes = isa.tile_lanes();
  // 1. The panel width: the FMA tile's (two vectors) or twice that. Wider panels share each
  //    row's broadcast of A among more vectors; the default is the widest whose default tile's
  //    partial sums take at most half the registers (AVX-512: 64 columns, 4 rows x 4 zmm).
  const int base_nr = default_fma_tile(isa, int(K)).nr, regs = lanes == 16 || lanes == 4 ? 32 : 16;
  std::vector<int64_t> widths = {base_nr};
  if (2 * base_nr <= 4 * lanes) widths.push_back(2 * base_nr);
  int64_t default_nr = base_nr;
  for (int64_t w : widths)
    if (kRowsRuleTileRows * (w / lanes) <= regs / 2) default_nr = w;
  const int nr = int(s.value(sample_choice(s, widths, default_nr)));
  // 2. The integers and scales in NR-wide panels, re-laid out at compile time; the bias row
  //    padded to whole panels.
  std::vector<LoopRV> j = s.split_block_iter(c, l[1], nr);
  panel_layout(s, c, d->q, 2, 1, 0, nr);
  panel_layout(s, c, d->scales, 2, 1, 0, nr);
  if (!d->bias.empty()) s.transform_layout(c, read_index(s, d->bias), {0, nr}, {});
  // 3. The row tiles by the dequantizing micro-kernel.
  const DequantTileSpec base{isa.arch, lanes, d->bits, 1, nr, K, d->group, 0};
  LoopRV task =
      schedule_row_tiles(s, c, l[0], j[0], j[1], l[2], nr, fma_max_tile_rows(isa, nr),
                         [&](int mr, int prefetch) {
                           DequantTileSpec spec = base, one = base;
                           spec.mr = mr;
                           spec.prefetch = one.prefetch = prefetch;
                           register_tensor_intrin(make_dequant_tile_intrin(spec));
                           register_tensor_intrin(make_dequant_tile_intrin(one));
                           return std::pair{dequant_tile_name(spec), dequant_tile_name(one)};
                         })
          .first;
  if (cfg.parallel) s.parallel(task);
}

}  // namespace ingot::schedule
