// The dequantized element of weight-only quantized integers (see dequantize.h).
#include "tir/dequantize.h"

#include "tir/op.h"

namespace ingot::tir {

Expr dequantized_weight(int bits, int64_t group, const Buffer& q, const Buffer& scales, Expr k,
                        Expr j) {
  Expr scale = scales.load({floordiv(k, i64(group)), j});
  if (bits == 8) return cast(DataType::f32(), q.load({k, j})) * scale;
  Expr byte = cast(DataType::i32(), q.load({floordiv(k, i64(2)), j}));
  Expr sixteen = make_const(DataType::i32(), 16);
  Expr nibble =
      select(floormod(k, i64(2)) == i64(0), floormod(byte, sixteen), floordiv(byte, sixteen));
  return (cast(DataType::f32(), nibble) - make_const(DataType::f32(), double(kInt4ZeroPoint))) *
         scale;
}

}  // namespace ingot::tir
