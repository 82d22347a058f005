// work_estimate(): a statement's work as an expression, checked by evaluating it at several
// bindings against the closed form counted by hand; the cases it cannot name give nullopt.
#include <gtest/gtest.h>

#include "tir/arith/analyzer.h"
#include "tir/buffer.h"
#include "tir/eval_helper.h"
#include "tir/op.h"
#include "tir/stmt.h"
#include "tir/work_estimate.h"

namespace ingot::tir {
namespace {

int64_t evaluated(const Expr& e, const testing::Env& env) {
  auto v = testing::eval(arith::simplify(e), env);
  EXPECT_TRUE(v.has_value());
  return v.value_or(-1);
}

TEST(WorkEstimate, NestsOfSymbolicExtentsMultiplyAndSequencesAdd) {
  Var n("n", DataType::i64()), m("m", DataType::i64());
  Buffer y = Buffer::make("y", DataType::f32(), std::vector<Expr>{n, m});
  Var i("i"), j("j");
  // for i < n: { y[i, 0] = 0; for j < m: y[i, j] = y[i, j] + 1; if (i < 3) y[i, 0] = 1 }
  Stmt body = SeqStmt::make(
      {BufferStore::make(y, f32(0), {i, i64(0)}),
       For::make(j, i64(0), m, ForKind::kSerial, BufferStore::make(y, y(i, j) + 1.0f, {i, j})),
       IfThenElse::make(i < 3, BufferStore::make(y, f32(1), {i, i64(0)}))});
  Stmt nest = For::make(i, i64(0), n, ForKind::kParallel, body);
  auto work = work_estimate(nest);
  ASSERT_TRUE(work.has_value());
  for (auto [nv, mv] : {std::pair<int64_t, int64_t>{1, 1}, {5, 7}, {128, 3}, {0, 9}})
    EXPECT_EQ(evaluated(*work, {{n.node(), nv}, {m.node(), mv}}), nv * (1 + mv + 1));
}

TEST(WorkEstimate, VectorLanesAndTranscendentalsWeigh) {
  Var n("n", DataType::i64());
  Buffer x = Buffer::make("x", DataType::f32(), std::vector<Expr>{n * i64(64)});
  Buffer y = Buffer::make("y", DataType::f32(), std::vector<Expr>{n * i64(64)});
  Var i("i");
  Expr row = Ramp::make(i * i64(64), i64(1), 64);
  // y[i, 0:64] = exp(x[i, 0:64]) + x[i, 0:64]: 64 lanes stored, 64 lanes of exp.
  Stmt store = BufferStore::make(y, exp(x.load({row})) + x.load({row}), {row});
  auto work = work_estimate(For::make(i, i64(0), n, ForKind::kSerial, store));
  ASSERT_TRUE(work.has_value());
  EXPECT_EQ(evaluated(*work, {{n.node(), 10}}), 10 * (64 + kTranscendentalWork * 64));
}

TEST(WorkEstimate, ExtentsOfInnerVariablesCannotBeNamed) {
  Var n("n", DataType::i64());
  Buffer y = Buffer::make("y", DataType::f32(), std::vector<Expr>{n, n});
  Var i("i"), j("j"), t("t");
  // A triangular nest: the inner extent depends on the outer loop's variable.
  Stmt tri = For::make(
      i, i64(0), n, ForKind::kSerial,
      For::make(j, i64(0), i + 1, ForKind::kSerial, BufferStore::make(y, f32(0), {i, j})));
  EXPECT_FALSE(work_estimate(tri).has_value());
  // An extent bound by a let inside the statement.
  Stmt let = LetStmt::make(
      t, n * i64(2),
      For::make(j, i64(0), t, ForKind::kSerial, BufferStore::make(y, f32(0), {i64(0), j})));
  EXPECT_FALSE(work_estimate(let).has_value());
  // An extent that divides by a variable (it could be zero where a branch guards the loop).
  Var d("d", DataType::i64());
  Stmt guarded = IfThenElse::make(d > 0, For::make(j, i64(0), floordiv(n, d), ForKind::kSerial,
                                                   BufferStore::make(y, f32(0), {i64(0), j})));
  EXPECT_FALSE(work_estimate(guarded).has_value());
  // The same extent free (bound outside the statement) is named.
  Stmt inner = For::make(j, i64(0), i + 1, ForKind::kSerial, BufferStore::make(y, f32(0), {i, j}));
  auto work = work_estimate(inner);
  ASSERT_TRUE(work.has_value());
  EXPECT_EQ(evaluated(*work, {{i.node(), 6}}), 7);
}

}  // namespace
}  // namespace ingot::tir
