// Default schedule of a product by bfloat16 weights (see bf16_matmul.h).
#include "schedule/rules/bf16_matmul.h"

#include "schedule/intrin/amx_tile.h"
#include "schedule/intrin/bf16_dot.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/panel_product.h"
#include "support/error.h"

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
  // AMX tiles (TDPBF16PS) where the depth and columns are whole tiles.
  if (t.amx_bf16 && panel_product_fits_amx(s, 2)) {
    schedule_panel_product(
        s, t, p->b, p->bias, 2,
        [&](int mr, int nr, int64_t steps) {
          return make_amx_tile_intrin(AmxTileSpec{true, mr, nr, steps});
        },
        /*amx=*/true);
    return;
  }
  schedule_panel_product(s, t, p->b, p->bias, 2, [&](int mr, int nr, int64_t steps) {
    return make_bf16_tile_intrin(BFloat16TileSpec{t.isa.tile_lanes(), mr, nr, steps});
  });
}

}  // namespace ingot::schedule
