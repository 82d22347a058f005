// The tensor-core fragments of a warp_mma nest (see warp_mma.h).
#include "codegen/gpu/warp_mma.h"

#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/reduction.h"
#include "tir/substitute.h"

namespace ingot::codegen {

using namespace tir;

namespace {

// Whether `index`, with the lane written 4G + T (G in [0, 8), T in [0, 4)), depends on G (or T
// when `on_t`).
bool lane_digit_used(const Expr& index, const Var& lane, bool on_t) {
  Var g("G", lane.dtype()), t("T", lane.dtype());
  arith::Analyzer an;
  an.bind(g, i64(0), i64(8));
  an.bind(t, i64(0), i64(4));
  Expr split = substitute(index, lane, g * make_const(lane.dtype(), 4) + t);
  return uses_var(an.simplify(split), on_t ? t : g);
}

}  // namespace

std::optional<WarpMmaFragments> warp_mma_fragments(const For& loop, const Var& lane,
                                                   std::string* why) {
  auto fail = [&](const std::string& reason) -> std::optional<WarpMmaFragments> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const auto* fq = loop.body.as<For>();
  const auto* fk = fq ? fq->body.as<For>() : nullptr;
  const auto* store = fk ? fk->body.as<BufferStore>() : nullptr;
  // A partial tile's mask (not of k): the masked elements are summed from what the staged tiles
  // hold there and never stored.
  const auto* mask = fk ? fk->body.as<IfThenElse>() : nullptr;
  if (mask != nullptr && !mask->else_case.defined() && !uses_var(mask->condition, fk->loop_var))
    store = mask->then_case.as<BufferStore>();
  if (store == nullptr || store->indices.size() != 1) return fail("its body is not one store");
  auto product = match_widened_product(*store);
  if (!product || product->a->indices.size() != 1 || product->b->indices.size() != 1)
    return fail("its store does not accumulate a float16 product in float32");
  const Var &h = loop.loop_var, &q = fq->loop_var, &k = fk->loop_var;
  const Expr &a = product->a->indices[0], &b = product->b->indices[0], &c = store->indices[0];
  if (uses_var(a, q) || uses_var(b, h) || uses_var(c, k))
    return fail("A's index uses the column, B's the row or C's the depth");
  if (lane_digit_used(a, lane, true))
    return fail("A's index depends on the lane's column pair (lane % 4)");
  if (lane_digit_used(b, lane, false))
    return fail("B's index depends on the lane's row group (lane / 4)");

  const DataType lt = lane.dtype();
  auto n = [&](int64_t v) { return make_const(lt, v); };
  const Expr g = floordiv(lane, n(4)), t = floormod(lane, n(4));
  WarpMmaFragments f{
      Buffer(product->a->buffer), Buffer(product->b->buffer), Buffer(store->buffer), {}, {}, {}};
  arith::Analyzer an;
  an.bind(lane, n(0), n(32));
  for (int i = 0; i < 8; ++i) {
    VarMap m;
    m[h.node()] = n((i >> 1) & 1);
    m[k.node()] = t * n(2) + n((i & 1) + 8 * (i >> 2));
    f.a_index[size_t(i)] = an.simplify(substitute(a, m));
  }
  for (int i = 0; i < 4; ++i) {
    // B's column is the lane's row group g: column pair g / 2 (as the lane's t), element g % 2.
    VarMap m;
    m[lane.node()] = floordiv(g, n(2));
    m[q.node()] = floormod(g, n(2));
    m[k.node()] = t * n(2) + n((i & 1) + 8 * (i >> 1));
    f.b_index[size_t(i)] = an.simplify(substitute(b, m));
  }
  for (int i = 0; i < 4; ++i) {
    VarMap m;
    m[h.node()] = n(i >> 1);
    m[q.node()] = n(i & 1);
    f.c_index[size_t(i)] = an.simplify(substitute(c, m));
  }
  return f;
}

}  // namespace ingot::codegen
