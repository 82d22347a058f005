// IRVisitor / IRMutator: full traversal and identity-preserving rebuilds.
#include <gtest/gtest.h>

#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

struct VarCounter : IRVisitor {
  int vars = 0, stores = 0;
  void visit_Var(const VarNode*, const Expr&) override { ++vars; }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    ++stores;
    IRVisitor::visit_BufferStore(op, s);
  }
};

PrimFunc make_add() {
  Buffer a = Buffer::make("A", DataType::f32(), std::vector<int64_t>{4, 16});
  Buffer c = Buffer::make("C", DataType::f32(), std::vector<int64_t>{4, 16});
  Var i("i"), j("j");
  Stmt store = BufferStore::make(c, a(i, j) + f32(1), {i, j});
  Stmt body = For::make(i, i64(0), i64(4), ForKind::kSerial,
                        For::make(j, i64(0), i64(16), ForKind::kSerial, store));
  return PrimFunc{"add", {a, c}, body};
}

TEST(Functor, VisitorReachesEveryNode) {
  VarCounter c;
  c.visit(make_add());
  // loop vars visited at their For (2) + A[i, j] (2) + C[i, j] (2)
  EXPECT_EQ(c.vars, 6);
  EXPECT_EQ(c.stores, 1);
}

TEST(Functor, MutatorKeepsIdentityWhenNothingChanges) {
  PrimFunc f = make_add();
  IRMutator m;
  EXPECT_TRUE(m.mutate(f).body.same_as(f.body));
  Var x("x");
  Expr e = select(x < 3, x * 2, x + 1);
  EXPECT_TRUE(m.mutate(e).same_as(e));
}

struct ConstBumper : IRMutator {
  Expr visit_IntImm(const IntImm* op, const Expr& e) override {
    return op->value == 2 ? IntImm::make(op->dtype, 5) : e;
  }
};

TEST(Functor, MutatorRebuildsOnlyChangedPath) {
  Var x("x");
  Expr left = x * 3;
  Expr e = left + (x * 2);
  Expr r = ConstBumper().mutate(e);
  ASSERT_FALSE(r.same_as(e));
  auto* add = r.as<Add>();
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->a.same_as(left));  // untouched subtree keeps its identity
  int64_t v;
  ASSERT_TRUE(is_const_int(add->b.as<Mul>()->b, &v));
  EXPECT_EQ(v, 5);
}

TEST(Functor, UnhandledNodeInBareFunctorIsInternalError) {
  struct OnlyVars : ExprFunctor<int(const Expr&)> {
    int visit_Var(const VarNode*, const Expr&) override { return 1; }
  } f;
  EXPECT_EQ(f.visit_expr(Var("v")), 1);
  EXPECT_THROW(f.visit_expr(i64(1)), InternalError);
}

}  // namespace
}  // namespace ingot::tir
