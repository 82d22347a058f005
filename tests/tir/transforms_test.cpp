// Passes: simplify, flatten_buffers, unroll_loops, vectorize_loops, hoist_guards (before/after
// structural) and verify.
#include <gtest/gtest.h>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"
#include "tir/transforms/flatten_buffers.h"
#include "tir/transforms/hoist_guards.h"
#include "tir/transforms/simplify.h"
#include "tir/transforms/unroll_loops.h"
#include "tir/transforms/vectorize_loops.h"
#include "tir/verify.h"

namespace ingot::tir {
namespace {

Buffer buf(const char* name, std::vector<int64_t> shape) {
  return Buffer::make(name, DataType::f32(), shape);
}

TEST(SimplifyPass, UsesLoopRangesDropsUnitLoopsAndConstantIfs) {
  Buffer a = buf("A", {64}), b = buf("B", {64});
  Var o("o"), i("i"), u("u");
  // for o in 0..4: for u in 0..1: for i in 0..16:
  //   if floordiv(i, 16) == 0: B[o*16 + floormod(i, 16) + u] = A[...]
  Expr idx = o * 16 + floormod(i, i64(16)) + u;
  Stmt body = IfThenElse::make(floordiv(i, i64(16)) == 0, BufferStore::make(b, a(idx), {idx}));
  Stmt s = For::make(o, i64(0), i64(4), ForKind::kSerial,
                     For::make(u, i64(0), i64(1), ForKind::kSerial,
                               For::make(i, i64(0), i64(16), ForKind::kSerial, body)));
  Expr want_idx = o * 16 + i;
  Stmt want = For::make(o, i64(0), i64(4), ForKind::kSerial,
                        For::make(i, i64(0), i64(16), ForKind::kSerial,
                                  BufferStore::make(b, a(want_idx), {want_idx})));
  Stmt got = simplify_stmt(s);
  EXPECT_TRUE(structural_equal(got, want)) << to_string(got);
}

TEST(SimplifyPass, OutlinedUnitLoopStays) {
  // An outlined loop is a function boundary, so one iteration of it is kept (a serial one goes).
  Buffer b = buf("B", {8});
  Var u("u"), i("i");
  Stmt inner = For::make(i, i64(0), i64(8), ForKind::kSerial, BufferStore::make(b, f32(1), {i}));
  Stmt s = For::make(u, i64(0), i64(1), ForKind::kOutlined, inner);
  EXPECT_TRUE(structural_equal(simplify_stmt(s), s)) << to_string(simplify_stmt(s));
  Stmt serial = For::make(u, i64(0), i64(1), ForKind::kSerial, inner);
  EXPECT_TRUE(structural_equal(simplify_stmt(serial), inner));
}

TEST(SimplifyPass, FalseIfVanishesAndNoChangeKeepsIdentity) {
  Buffer b = buf("B", {8});
  Var i("i");
  Stmt keep = BufferStore::make(b, f32(1), {i});
  Stmt s = For::make(i, i64(0), i64(8), ForKind::kSerial,
                     SeqStmt::make({keep, IfThenElse::make(i >= 8, keep)}));
  Stmt want = For::make(i, i64(0), i64(8), ForKind::kSerial, keep);
  EXPECT_TRUE(structural_equal(simplify_stmt(s), want)) << to_string(simplify_stmt(s));
  EXPECT_TRUE(simplify_stmt(want).same_as(want));
  // else branch taken when the condition is provably false
  Stmt other = BufferStore::make(b, f32(2), {i});
  Stmt s2 = For::make(i, i64(0), i64(8), ForKind::kSerial, IfThenElse::make(i > 9, keep, other));
  Stmt want2 = For::make(i, i64(0), i64(8), ForKind::kSerial, other);
  EXPECT_TRUE(structural_equal(simplify_stmt(s2), want2));
  // A store of what was just loaded from the same place is dropped; one elsewhere stays.
  Stmt self = BufferStore::make(b, b(i), {i});
  Stmt shifted = BufferStore::make(b, b(i + 1), {i});
  Stmt s3 = For::make(i, i64(0), i64(7), ForKind::kSerial, SeqStmt::make({self, shifted}));
  Stmt want3 = For::make(i, i64(0), i64(7), ForKind::kSerial, shifted);
  EXPECT_TRUE(structural_equal(simplify_stmt(s3), want3)) << to_string(simplify_stmt(s3));
}

TEST(FlattenBuffers, RowMajorAndStridedAndVector) {
  Buffer a = buf("A", {4, 16}), c = buf("C", {2, 3, 4});
  Buffer s = Buffer::make("S", DataType::f32(), {i64(4), i64(4)}, StorageScope::kGlobal,
                          {i64(32), i64(2)});
  Var i("i"), j("j"), k("k");
  Stmt body = SeqStmt::make(
      {BufferStore::make(c, a(i, j), {i, j, k}), BufferStore::make(s, f32(0), {i, j}),
       BufferStore::make(a, a(i, Ramp::make(j, i64(1), 4)) * Broadcast::make(f32(2), 4),
                         {i, Ramp::make(j, i64(1), 4)})});
  PrimFunc f{"f", {a, c, s}, body};
  PrimFunc got = flatten_buffers(f);
  Stmt want = SeqStmt::make(
      {BufferStore::make(c, a(i * 16 + j), {i * 12 + j * 4 + k}),
       BufferStore::make(s, f32(0), {i * 32 + j * 2}),
       BufferStore::make(a, a(Ramp::make(i * 16 + j, i64(1), 4)) * Broadcast::make(f32(2), 4),
                         {Ramp::make(i * 16 + j, i64(1), 4)})});
  EXPECT_TRUE(structural_equal(got.body, want)) << to_string(got);
  auto loops = [&](Stmt b) {
    for (const Var& v : {k, j, i}) b = For::make(v, i64(0), i64(2), ForKind::kSerial, b);
    return b;
  };
  EXPECT_NO_THROW(verify_prim_func(PrimFunc{"f", {a, c, s}, loops(got.body)}, /*flattened=*/true));
  EXPECT_THROW(verify_prim_func(PrimFunc{"f", {a, c, s}, loops(got.body)}), InternalError);
  // one dense dimension is already flat: the pass is a no-op
  Buffer v = buf("V", {8});
  Stmt flat = BufferStore::make(v, v(i), {i});
  EXPECT_TRUE(flatten_buffers(PrimFunc{"g", {v}, flat}).body.same_as(flat));
}

TEST(UnrollLoops, ShortUnrolledLoopsBecomeCopies) {
  Buffer b = buf("B", {4, 3});
  Var i("i"), j("j");
  Stmt inner =
      For::make(j, i64(0), i64(3), ForKind::kUnrolled, BufferStore::make(b, f32(1), {i, j}));
  Stmt s = For::make(i, i64(0), i64(4), ForKind::kSerial, inner);
  Stmt want = For::make(i, i64(0), i64(4), ForKind::kSerial,
                        SeqStmt::make({BufferStore::make(b, f32(1), {i, i64(0)}),
                                       BufferStore::make(b, f32(1), {i, i64(1)}),
                                       BufferStore::make(b, f32(1), {i, i64(2)})}));
  EXPECT_TRUE(structural_equal(unroll_loops(s, 8), want)) << to_string(unroll_loops(s, 8));
  EXPECT_TRUE(unroll_loops(s, 2).same_as(s));  // too long: left alone
  Stmt serial =
      For::make(j, i64(0), i64(3), ForKind::kSerial, BufferStore::make(b, f32(1), {i, j}));
  EXPECT_TRUE(unroll_loops(serial, 8).same_as(serial));
}

TEST(HoistGuards, AGuardedStoresLoopInvariantTermsBecomeOneIfPerRow) {
  // for r: for t in 0..3: { for j: Y[j] = select(r + t >= 1 && j + t >= 1, Y[j] + X[j], Y[j]) }
  // for each of two taps t (a conv's kernel columns, each its own j loop): the row term becomes
  // one if around both loops (merged), the column term stays in the store.
  Buffer y = buf("Y", {8}), x = buf("X", {8});
  Var r("r"), j0("j0"), j1("j1");
  auto guarded = [&](const Var& j, int64_t t) {
    Expr cond = r + i64(t) >= i64(1) && j + i64(t) >= i64(1);
    return For::make(j, i64(0), i64(8), ForKind::kSerial,
                     BufferStore::make(y, select(cond, y(j) + x(j), y(j)), {j}));
  };
  Stmt s = For::make(r, i64(0), i64(4), ForKind::kSerial,
                     SeqStmt::make({guarded(j0, 1), guarded(j1, 1)}));
  auto inner = [&](const Var& j) {
    return For::make(j, i64(0), i64(8), ForKind::kSerial,
                     BufferStore::make(y, select(j + i64(1) >= i64(1), y(j) + x(j), y(j)), {j}));
  };
  Stmt want =
      For::make(r, i64(0), i64(4), ForKind::kSerial,
                IfThenElse::make(r + i64(1) >= i64(1), SeqStmt::make({inner(j0), inner(j1)})));
  Stmt got = hoist_guards(s);
  EXPECT_TRUE(structural_equal(got, want)) << to_string(got);
}

TEST(HoistGuards, OnlyGuardedStoresAndLoadFreeInvariantTermsMove) {
  Buffer y = buf("Y", {8}), x = buf("X", {8}), z = buf("Z", {8});
  Var a("a"), j("j");
  auto loop = [&](Expr value) {
    return For::make(j, i64(0), i64(8), ForKind::kSerial, BufferStore::make(y, value, {j}));
  };
  // The false value is not the stored element: skipping the store would change Y.
  Stmt other = loop(select(a > i64(0), x(j), z(j)));
  EXPECT_TRUE(hoist_guards(other).same_as(other));
  // A term that loads a buffer stays (the loop may store what it reads).
  Stmt loads = loop(select(y(i64(0)) > f32(0), y(j) + x(j), y(j)));
  EXPECT_TRUE(hoist_guards(loads).same_as(loads));
  // A vectorized loop keeps its guard (only serial loops are unswitched).
  Stmt vec = For::make(j, i64(0), i64(8), ForKind::kVectorized,
                       BufferStore::make(y, select(a > i64(0), y(j) + x(j), y(j)), {j}));
  EXPECT_TRUE(hoist_guards(vec).same_as(vec));
  // A whole-invariant guard: the if around a plain store.
  Stmt whole = loop(select(a > i64(0), y(j) + x(j), y(j)));
  Stmt want = IfThenElse::make(a > i64(0), loop(y(j) + x(j)));
  EXPECT_TRUE(structural_equal(hoist_guards(whole), want)) << to_string(hoist_guards(whole));
}

TEST(VectorizeLoops, FloorDivAndModOfValuesAreVectorOps) {
  // for l in vectorized(0, 16): Z[i, l] = float32(int32(Q[i, l]) % 16 + int32(Q[i, l]) // 16):
  // the nibbles of an int4 weight's byte, on vectors.
  Buffer q = Buffer::make("Q", DataType::u8(), std::vector<int64_t>{4, 16});
  Buffer z = buf("Z", {4, 16});
  Var i("i"), l("l");
  auto nibbles = [&](Expr at) {
    Expr byte = cast(DataType::i32().with_lanes(at.dtype().lanes), q(i, at));
    Expr sixteen = make_const(byte.dtype(), 16);
    return cast(DataType::f32().with_lanes(at.dtype().lanes),
                floormod(byte, sixteen) + floordiv(byte, sixteen));
  };
  Stmt s =
      For::make(l, i64(0), i64(16), ForKind::kVectorized, BufferStore::make(z, nibbles(l), {i, l}));
  Expr r0 = Ramp::make(i64(0), i64(1), 16);
  Stmt want = BufferStore::make(z, nibbles(r0), {i, r0});
  EXPECT_TRUE(structural_equal(vectorize_loops(s), want)) << to_string(vectorize_loops(s));
}

TEST(VectorizeLoops, StraightLineStoresBecomeVectorStores) {
  // for l in vectorized(0, 16): Y[i, l + 16] = select(c, Y[i, l + 16] + X[i, l] * W[l], Y[...])
  // and Z[i, l] = 0.5 (a broadcast): the contiguous run of l is a Ramp in the last index.
  Buffer x = buf("X", {4, 16}), w = buf("W", {16}), y = buf("Y", {4, 32}), z = buf("Z", {4, 16});
  Var i("i"), l("l"), c("c", DataType::boolean());
  Expr yl = y(i, Expr(l) + i64(16));
  Stmt body = SeqStmt::make(
      {BufferStore::make(y, select(c, yl + x(i, l) * w(l), yl), {i, Expr(l) + i64(16)}),
       BufferStore::make(z, f32(0.5), {i, l})});
  Stmt s = For::make(l, i64(0), i64(16), ForKind::kVectorized, body);
  Expr r16 = Ramp::make(i64(16), i64(1), 16), r0 = Ramp::make(i64(0), i64(1), 16);
  Expr yv = y(i, r16);
  Stmt want = SeqStmt::make({BufferStore::make(y, select(c, yv + x(i, r0) * w(r0), yv), {i, r16}),
                             BufferStore::make(z, Broadcast::make(f32(0.5), 16), {i, r0})});
  EXPECT_TRUE(structural_equal(vectorize_loops(s), want)) << to_string(vectorize_loops(s));
  // Left to LLVM: a strided access, the variable outside the last index, a nested loop, a
  // condition on the variable, a serial loop, a long loop.
  auto vec = [&](Stmt b, int64_t n = 16) {
    return For::make(l, i64(0), i64(n), ForKind::kVectorized, b);
  };
  Var j("j");
  for (const Stmt& keep : std::vector<Stmt>{
           vec(BufferStore::make(z, x(i, floormod(Expr(l) * 2, i64(16))), {i, l})),
           vec(BufferStore::make(z, x(floormod(Expr(l), i64(4)), i64(0)), {i, l})),
           vec(For::make(j, i64(0), i64(2), ForKind::kSerial,
                         BufferStore::make(z, f32(1), {i, l}))),
           vec(BufferStore::make(z, select(Expr(l) < i64(3), f32(1), f32(0)), {i, l})),
           For::make(l, i64(0), i64(16), ForKind::kSerial, BufferStore::make(z, f32(1), {i, l})),
           vec(BufferStore::make(buf("L", {1, 128}), f32(1), {i64(0), l}), 128),
           vec(IfThenElse::make(Expr(l) < i64(3), BufferStore::make(z, f32(1), {i, l})))})
    EXPECT_TRUE(vectorize_loops(keep).same_as(keep)) << to_string(keep);
}

TEST(VectorizeLoops, SimplifiesChannelBlockedIndicesWithTheLoopRanges) {
  // for o in 0..6: for l in vectorized(0, 16):
  //   Y[o * 16 + l] = X[floordiv(o * 16 + l, 32), floormod(o * 16 + l, 32)]
  // (a strip of 16 lanes reading a tensor in channel blocks of 32): with l < 16 the read is
  // X[floordiv(o, 2), floormod(o, 2) * 16 + l], one vector load.
  Buffer x = buf("X", {3, 32}), y = buf("Y", {96});
  Var o("o"), l("l");
  Expr c = o * 16 + l;
  Stmt s = For::make(
      o, i64(0), i64(6), ForKind::kSerial,
      For::make(l, i64(0), i64(16), ForKind::kVectorized,
                BufferStore::make(y, x(floordiv(c, i64(32)), floormod(c, i64(32))), {c})));
  Stmt got = vectorize_loops(s);
  auto* loop = got.as<For>();
  ASSERT_NE(loop, nullptr);
  auto* store = loop->body.as<BufferStore>();
  ASSERT_NE(store, nullptr) << to_string(got);
  ASSERT_NE(store->indices[0].as<Ramp>(), nullptr) << to_string(got);
  auto* load = store->value.as<BufferLoad>();
  ASSERT_NE(load, nullptr) << to_string(got);
  EXPECT_FALSE(uses_var(load->indices[0], l)) << to_string(got);
  EXPECT_NE(load->indices[1].as<Ramp>(), nullptr) << to_string(got);
  // Blocks of 8 are not contiguous over 16 lanes: left to LLVM.
  Stmt strided = For::make(
      o, i64(0), i64(6), ForKind::kSerial,
      For::make(
          l, i64(0), i64(16), ForKind::kVectorized,
          BufferStore::make(y, buf("X8", {12, 8})(floordiv(c, i64(8)), floormod(c, i64(8))), {c})));
  EXPECT_TRUE(vectorize_loops(strided).same_as(strided)) << to_string(vectorize_loops(strided));
}

TEST(VectorizeLoops, MathCallsAndInvariantIfs) {
  // for l in vectorized(0, 16): if i < n: Z[i, l] = X[i, l] * sigmoid(X[i, l]) (a SiLU epilogue
  // under a strip's tail test): the if stays around the vector store.
  Buffer x = buf("X", {4, 16}), z = buf("Z", {4, 16});
  Var i("i"), l("l"), n("n");
  Expr xl = x(i, l);
  Stmt s = For::make(l, i64(0), i64(16), ForKind::kVectorized,
                     IfThenElse::make(Expr(i) < n, BufferStore::make(z, xl * sigmoid(xl), {i, l})));
  Expr r0 = Ramp::make(i64(0), i64(1), 16), xv = x(i, r0);
  Stmt want = IfThenElse::make(Expr(i) < n, BufferStore::make(z, xv * sigmoid(xv), {i, r0}));
  EXPECT_TRUE(structural_equal(vectorize_loops(s), want)) << to_string(vectorize_loops(s));
}

TEST(VectorizeLoops, LetsThatVaryWithTheLaneBecomeVectorLets) {
  // for l in vectorized(0, 16): let a = X[i, l] + X[i, l + 16]; let k = i * 2;
  //   Z[i, l] = a * a; Z[i, l + 16] = a - float32(k)   (the Winograd transforms' shared sums):
  // a becomes a 16-lane let both stores read, k (lane-invariant) stays scalar.
  Buffer x = buf("X", {4, 32}), z = buf("Z", {4, 32});
  Var i("i"), l("l"), a("a", DataType::f32()), k("k");
  Expr l16 = Expr(l) + i64(16);
  Stmt body = LetStmt::make(
      a, x(i, l) + x(i, l16),
      LetStmt::make(k, i * 2,
                    SeqStmt::make({BufferStore::make(z, a * a, {i, l}),
                                   BufferStore::make(z, a - cast(DataType::f32(), k), {i, l16})})));
  Stmt got = vectorize_loops(For::make(l, i64(0), i64(16), ForKind::kVectorized, body));
  auto* outer = got.as<LetStmt>();
  ASSERT_NE(outer, nullptr) << to_string(got);
  EXPECT_EQ(outer->var.dtype(), DataType::f32().with_lanes(16));
  Expr r0 = Ramp::make(i64(0), i64(1), 16), r16 = Ramp::make(i64(16), i64(1), 16);
  EXPECT_TRUE(structural_equal(outer->value, x(i, r0) + x(i, r16))) << to_string(got);
  auto* inner = outer->body.as<LetStmt>();
  ASSERT_NE(inner, nullptr) << to_string(got);
  EXPECT_TRUE(inner->var.same_as(k));  // lane-invariant: unchanged
  Expr av = outer->var;
  Stmt want = SeqStmt::make(
      {BufferStore::make(z, av * av, {i, r0}),
       BufferStore::make(z, av - Broadcast::make(cast(DataType::f32(), k), 16), {i, r16})});
  EXPECT_TRUE(structural_equal(inner->body, want)) << to_string(got);
  // A let whose value cannot be written on vectors (a strided read) leaves the loop to LLVM.
  Stmt strided =
      For::make(l, i64(0), i64(16), ForKind::kVectorized,
                LetStmt::make(a, x(i, Expr(l) * 2), BufferStore::make(z, Expr(a), {i, l})));
  EXPECT_TRUE(vectorize_loops(strided).same_as(strided)) << to_string(vectorize_loops(strided));
}

TEST(Verify, AcceptsWellFormedAndNamesTheOffender) {
  Buffer a = buf("A", {4, 4});
  Var i("i"), j("j"), stray("stray");
  auto loop = [&](Stmt body) {
    return For::make(i, i64(0), i64(4), ForKind::kSerial,
                     For::make(j, i64(0), i64(4), ForKind::kSerial, body));
  };
  EXPECT_NO_THROW(
      verify_prim_func(PrimFunc{"ok", {a}, loop(BufferStore::make(a, a(j, i), {i, j}))}));
  auto message = [](const PrimFunc& f) {
    try {
      verify_prim_func(f);
    } catch (const InternalError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(
      message(PrimFunc{"f", {a}, loop(BufferStore::make(a, f32(0), {i, stray}))}).find("'stray'"),
      std::string::npos);
  EXPECT_NE(message(PrimFunc{"f", {a}, loop(BufferStore::make(a, f32(0), {i}))})
                .find("'A' accessed with 1"),
            std::string::npos);
  Buffer other = buf("Other", {4});
  EXPECT_NE(
      message(PrimFunc{"f", {a}, loop(BufferStore::make(other, f32(0), {i}))}).find("'Other'"),
      std::string::npos);
  // a symbolic dimension of a parameter is defined by it
  Var n("n");
  Buffer d = Buffer::make("D", DataType::f32(), {n});
  EXPECT_NO_THROW(verify_prim_func(PrimFunc{
      "sym", {d}, For::make(i, i64(0), n, ForKind::kSerial, BufferStore::make(d, f32(0), {i}))}));
}

}  // namespace
}  // namespace ingot::tir
