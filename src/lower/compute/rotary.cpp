// Compute rule of RotaryEmbedding: per (batch, head, position) the first rotary_embedding_dim
// elements of the head are rotated in pairs (halves, or adjacent elements when interleaved) by
// the cached cos/sin of the position; the rest of the head is copied.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_rotary(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& cos_cache = inputs.at(1);
  const Buffer& sin_cache = inputs.at(2);
  Buffer ids = inputs.size() > 3 ? inputs[3] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  bool rank4 = x.ndim() == 4;
  int64_t heads = node.attrs.get_int("num_heads", 0);
  INGOT_ICHECK(heads > 0, "{}: num_heads not inferred", node_label(node));
  int64_t size = rank4 ? xs[3] : xs[2] / heads;
  int64_t seq = rank4 ? xs[2] : xs[1];
  int64_t rot = node.attrs.get_int("rotary_embedding_dim", 0);
  int64_t half = rot / 2;
  bool interleaved = node.attrs.get_int("interleaved", 0) != 0;

  return loop_nest({xs[0], heads, seq}, "r", [&](const Index& o) {
    Expr b = o[0], h = o[1], s = o[2];
    auto at = [&](Expr d) { return rank4 ? Index{b, h, s, d} : Index{b, s, h * size + d}; };
    auto cache = [&](const Buffer& c, Expr k) {
      if (ids.defined()) return c.load({ids.load({b, s}), k});
      return c.load({b, s, k});
    };
    Stmt rotate = serial_loop("k", i64(0), half, [&](Expr k) {
      Expr i1 = interleaved ? k * 2 : k;
      Expr i2 = interleaved ? k * 2 + 1 : k + half;
      Expr x1 = x.load(at(i1)), x2 = x.load(at(i2));
      Expr c = cache(cos_cache, k), sn = cache(sin_cache, k);
      return SeqStmt::make({BufferStore::make(y, c * x1 - sn * x2, at(i1)),
                            BufferStore::make(y, sn * x1 + c * x2, at(i2))});
    });
    if (rot == size) return rotate;
    Stmt copy = serial_loop("d", i64(rot), size - rot,
                            [&](Expr d) { return BufferStore::make(y, x.load(at(d)), at(d)); });
    return SeqStmt::make({rotate, copy});
  });
}

}  // namespace ingot::lower
