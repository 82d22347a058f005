// The tensor-core fragments of a warp_mma nest (see warp_mma.h).
#include "codegen/gpu/warp_mma.h"

#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/op.h"
#include "tir/reduction.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

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

namespace {

class FragmentBoundsChecker : public IRVisitor {
 public:
  explicit FragmentBoundsChecker(const DeviceFunction& f) : f_(f) {
    for (size_t d = 0; d < 3; ++d) {
      if (f.block_vars[d].defined())
        analyzer_.bind(f.block_vars[d], arith::ConstIntBound{0, int64_t(f.grid[d]) - 1});
      if (f.thread_vars[d].defined())
        analyzer_.bind(f.thread_vars[d], arith::ConstIntBound{0, int64_t(f.block[d]) - 1});
    }
  }
  std::string found;

  void visit_For(const For* op, const Stmt& s) override {
    if (!found.empty()) return;
    analyzer_.bind(op->loop_var, op->min, op->extent);
    if (op->kind == ForKind::kWarpMma && f_.thread_vars[0].defined()) check(*op);
    IRVisitor::visit_For(op, s);
  }
  void visit_LetStmt(const LetStmt* op, const Stmt& s) override {
    analyzer_.bind(op->var, analyzer_.bound_of(op->value));
    IRVisitor::visit_LetStmt(op, s);
  }

 private:
  void check(const For& loop) {
    std::optional<WarpMmaFragments> frag = warp_mma_fragments(loop, f_.thread_vars[0], nullptr);
    if (!frag) return;  // the printer reports why
    auto inside = [&](const Buffer& b, const Expr& index) {
      std::optional<int64_t> n = constant_elements(*b.get());
      arith::ConstIntBound iv =
          analyzer_.bound_of(analyzer_.simplify(arith::linear_form(index).to_expr(index.dtype())));
      if (n && iv.min_value >= 0 && iv.max_value < *n) return true;
      found = fmt::format("loop {} reads {}[{}..{}] of {} elements", loop.loop_var.name(), b->name,
                          iv.min_value, iv.max_value, n ? *n : -1);
      return false;
    };
    for (const Expr& i : frag->a_index)
      if (!inside(frag->a, i)) return;
    for (const Expr& i : frag->b_index)
      if (!inside(frag->b, i)) return;
  }

  const DeviceFunction& f_;
  arith::Analyzer analyzer_;
};

}  // namespace

std::string warp_mma_read_outside(const DeviceFunction& f) {
  FragmentBoundsChecker checker(f);
  checker.visit_stmt(f.body);
  return checker.found;
}

}  // namespace ingot::codegen
