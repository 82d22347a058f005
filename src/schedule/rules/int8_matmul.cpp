// Default schedule of an 8-bit integer product (see int8_matmul.h).
#include "schedule/rules/int8_matmul.h"

#include "schedule/intrin/amx_tile.h"
#include "schedule/intrin/int8_dot.h"
#include "schedule/rules/dense_product.h"
#include "schedule/rules/panel_product.h"
#include "support/error.h"

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
  // G = 4 where the target multiplies A's type by int8 in quads (VNNI; AArch64 dotprod or
  // i8mm), else 2 (int16 pairs).
  const int group = (p->a_signed ? t.int8_signed_quads : t.int8_quads) ? 4 : 2;
  // AMX tiles (TDPBUSD) for uint8 A where the depth and columns are whole tiles.
  if (t.amx_int8 && !p->a_signed && panel_product_fits_amx(s, 4)) {
    schedule_panel_product(
        s, t, p->b, p->bias, 4,
        [&](int mr, int nr, int64_t steps) {
          return make_amx_tile_intrin(AmxTileSpec{false, mr, nr, steps});
        },
        /*amx=*/true);
    return;
  }
  schedule_panel_product(s, t, p->b, p->bias, group, [&](int mr, int nr, int64_t steps) {
    return make_int8_tile_intrin(
        Int8TileSpec{t.isa.arch, t.isa.tile_lanes(), mr, nr, steps, group, p->a_signed});
  });
}

}  // namespace ingot::schedule
