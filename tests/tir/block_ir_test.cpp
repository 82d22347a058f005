// Block-based IR: printer, structural equality/hash over iter vars, region inference, verify
// and the lower_blocks pass (structurally).
#include <gtest/gtest.h>

#include "support/error.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/structural_hash.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/verify.h"

namespace ingot::tir {
namespace {

Expr yes() {
  return IntImm::make(DataType::boolean(), 1);
}

struct MM {
  Buffer A = Buffer::make("A", DataType::f32(), {64, 16});
  Buffer B = Buffer::make("B", DataType::f32(), {16, 32});
  Buffer C = Buffer::make("C", DataType::f32(), {64, 32});
  // for i, j, k: block C (vi, vj spatial, vk reduce) with init.
  Stmt body(Var i, Var j, Var k, std::string name = "C") const {
    Var vi("vi"), vj("vj"), vk("vk");
    Stmt b = make_block(name,
                        {{vi, i64(0), i64(64), IterKind::kSpatial},
                         {vj, i64(0), i64(32), IterKind::kSpatial},
                         {vk, i64(0), i64(16), IterKind::kReduce}},
                        BufferStore::make(C, C(vi, vj) + A(vi, vk) * B(vk, vj), {vi, vj}),
                        BufferStore::make(C, f32(0), {vi, vj}));
    Stmt r = BlockRealize::make({i, j, k}, yes(), b);
    return For::make(i, i64(0), i64(64), ForKind::kSerial,
                     For::make(j, i64(0), i64(32), ForKind::kSerial,
                               For::make(k, i64(0), i64(16), ForKind::kSerial, r)));
  }
  PrimFunc func(Stmt body) const { return PrimFunc{"mm", {A, B, C}, std::move(body)}; }
};

TEST(BlockIR, PrinterShowsBlocksLikeTVMScript) {
  MM m;
  Var i("i"), j("j"), k("k");
  EXPECT_EQ(to_string(m.body(i, j, k)),
            "for i in range(0, 64):\n"
            "  for j in range(0, 32):\n"
            "    for k in range(0, 16):\n"
            "      with block(\"C\"):\n"
            "        vi = spatial(0, 64, i)\n"
            "        vj = spatial(0, 32, j)\n"
            "        vk = reduce(0, 16, k)\n"
            "        reads(C[vi, vj], A[vi, vk], B[vk, vj])\n"
            "        writes(C[vi, vj])\n"
            "        with init():\n"
            "          C[vi, vj] = 0.0\n"
            "        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
}

TEST(BlockIR, PrinterShowsPredicateRangesAndAllocations) {
  Buffer X = Buffer::make("X", DataType::f32(), std::vector<int64_t>{8});
  Buffer T = Buffer::make("T", DataType::f32(), std::vector<int64_t>{8}, StorageScope::kLocal);
  Var v("v"), i("i");
  Stmt inner = For::make(i, i64(0), i64(8), ForKind::kSerial, BufferStore::make(T, X(i), {i}));
  Stmt b = make_block("copy", {{v, i64(0), i64(2), IterKind::kSpatial}}, inner, Stmt(), {T},
                      {{"pragma", "x"}});
  Stmt r = BlockRealize::make({i64(1)}, i64(1) < i64(2), b);
  EXPECT_EQ(to_string(r),
            "with block(\"copy\"):\n"
            "  v = spatial(0, 2, 1)\n"
            "  where(1 < 2)\n"
            "  reads(X[0:8])\n"
            "  writes()\n"
            "  annotate(\"pragma\", \"x\")\n"
            "  T = alloc_buffer(float32[8], \"local\")\n"
            "  for i in range(0, 8):\n"
            "    T[i] = X[i]\n");
}

TEST(BlockIR, StructuralEqualMapsIterVarsAndHashAgrees) {
  MM m;
  Stmt a = m.body(Var("i"), Var("j"), Var("k"));
  Stmt b = m.body(Var("x"), Var("y"), Var("z"));
  EXPECT_TRUE(structural_equal(a, b));
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  Stmt c = m.body(Var("i"), Var("j"), Var("k"), "D");
  EXPECT_FALSE(structural_equal(a, c));
  EXPECT_NE(structural_hash(a), structural_hash(c));
}

TEST(BlockIR, StructuralEqualSeesIterKindAndBindingChanges) {
  MM m;
  Var i("i"), j("j"), k("k");
  Stmt a = m.body(i, j, k);
  // Same loops, bindings swapped (vi bound to j's loop): different.
  auto* fi = a.as<For>();
  auto* fj = fi->body.as<For>();
  auto* fk = fj->body.as<For>();
  auto* br = fk->body.as<BlockRealize>();
  Stmt swapped = For::make(i, i64(0), i64(64), ForKind::kSerial,
                           For::make(j, i64(0), i64(32), ForKind::kSerial,
                                     For::make(k, i64(0), i64(16), ForKind::kSerial,
                                               BlockRealize::make({j, i, k}, yes(), br->block))));
  EXPECT_FALSE(structural_equal(a, swapped));
  const Block* blk = br->block_node();
  std::vector<IterVar> ivs = blk->iter_vars;
  ivs[2].kind = IterKind::kSpatial;
  Stmt nb = Block::make("C", ivs, blk->reads, blk->writes, blk->body, blk->init);
  Stmt other = For::make(i, i64(0), i64(64), ForKind::kSerial,
                         For::make(j, i64(0), i64(32), ForKind::kSerial,
                                   For::make(k, i64(0), i64(16), ForKind::kSerial,
                                             BlockRealize::make({i, j, k}, yes(), nb))));
  EXPECT_FALSE(structural_equal(a, other));
}

TEST(BlockIR, RegionInferenceRelaxesInnerLoops) {
  // A block whose body loops over r: reads X[v*4 : v*4+4], writes Y[v].
  Buffer X = Buffer::make("X", DataType::f32(), std::vector<int64_t>{32});
  Buffer Y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{8});
  Var v("v"), r("r");
  Stmt body = For::make(r, i64(0), i64(4), ForKind::kSerial,
                        BufferStore::make(Y, Y(v) + X(v * 4 + r), {v}));
  std::vector<BufferRegion> reads, writes;
  infer_block_regions(body, Stmt(), {}, &reads, &writes);
  ASSERT_EQ(reads.size(), 2u);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_TRUE(reads[1].buffer.same_as(X));
  EXPECT_TRUE(structural_equal(reads[1].region[0].min, v * 4));
  EXPECT_TRUE(structural_equal(reads[1].region[0].extent, i64(4)));
  EXPECT_TRUE(structural_equal(writes[0].region[0].min, v));
  EXPECT_TRUE(structural_equal(writes[0].region[0].extent, i64(1)));
  // An index the relaxation does not understand covers the whole dimension.
  Stmt odd = For::make(r, i64(0), i64(4), ForKind::kSerial, BufferStore::make(Y, X(r * r), {v}));
  infer_block_regions(odd, Stmt(), {}, &reads, &writes);
  EXPECT_TRUE(structural_equal(reads[0].region[0].extent, i64(32)));
}

// Unions of several reads: neighbouring taps of one row stay a tight range; clamped reads (a
// pooling window's border taps, max(min(i, n - 1), 0)) widen their dim to the whole buffer
// instead of growing a min/max chain that every later union would re-simplify.
TEST(BlockIR, RegionUnionsStayTightOrWidenClampedChains) {
  Buffer X = Buffer::make("X", DataType::f32(), std::vector<int64_t>{4, 32});
  Buffer Y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{4, 30});
  Var b("b"), v("v");
  Expr taps = X(b, v) + X(b, v + 1) + X(b, v + 2);
  std::vector<BufferRegion> reads, writes;
  infer_block_regions(BufferStore::make(Y, taps, {b, v}), Stmt(), {}, &reads, &writes);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_TRUE(structural_equal(reads[0].region[0].min, b));
  EXPECT_TRUE(structural_equal(reads[0].region[0].extent, i64(1)));
  EXPECT_TRUE(structural_equal(reads[0].region[1].min, v));
  EXPECT_TRUE(structural_equal(reads[0].region[1].extent, i64(3)));
  auto clamp = [](const Expr& i) { return max(min(i, i64(31)), i64(0)); };
  Expr clamped = X(b, clamp(v - 1)) + X(b, clamp(v)) + X(b, clamp(v + 1));
  infer_block_regions(BufferStore::make(Y, clamped, {b, v}), Stmt(), {}, &reads, &writes);
  ASSERT_EQ(reads.size(), 1u);
  EXPECT_TRUE(structural_equal(reads[0].region[0].min, b));  // the unclamped dim stays tight
  EXPECT_TRUE(structural_equal(reads[0].region[1].min, i64(0)));
  EXPECT_TRUE(structural_equal(reads[0].region[1].extent, i64(32)));
}

TEST(BlockIR, VerifyChecksIterVarScopeAndRegions) {
  MM m;
  EXPECT_NO_THROW(verify_prim_func(m.func(m.body(Var("i"), Var("j"), Var("k")))));
  // An iter var used outside its block.
  Var vi("vi"), i("i");
  Stmt b = make_block("B", {{vi, i64(0), i64(64), IterKind::kSpatial}},
                      BufferStore::make(m.C, f32(1), {vi, i64(0)}));
  Stmt bad = For::make(i, i64(0), i64(64), ForKind::kSerial,
                       SeqStmt::make({BlockRealize::make({i}, yes(), b),
                                      BufferStore::make(m.C, f32(2), {vi, i64(0)})}));
  EXPECT_THROW(verify_prim_func(m.func(bad)), ingot::InternalError);
}

TEST(BlockIR, MakeChecksArguments) {
  MM m;
  Var vi("vi");
  Stmt b = make_block("B", {{vi, i64(0), i64(64), IterKind::kSpatial}},
                      BufferStore::make(m.C, f32(1), {vi, i64(0)}));
  EXPECT_THROW(BlockRealize::make({}, yes(), b), ingot::InternalError);
  EXPECT_THROW(BlockRealize::make({i64(0)}, i64(1), b), ingot::InternalError);
  EXPECT_THROW(Block::make("B", {}, {BufferRegion{m.C, {}}}, {}, b), ingot::InternalError);
}

TEST(LowerBlocks, SubstitutesBindingsGuardsInitAndPredicate) {
  MM m;
  Var i("i"), j("j"), k("k");
  Stmt blocks = m.body(i, j, k);
  // Add a predicate to see it become an if.
  auto* fk = blocks.as<For>()->body.as<For>()->body.as<For>();
  auto* br = fk->body.as<BlockRealize>();
  Stmt pred_realize = BlockRealize::make(br->iter_values, i < 60, br->block);
  Stmt with_pred =
      For::make(i, i64(0), i64(64), ForKind::kSerial,
                For::make(j, i64(0), i64(32), ForKind::kSerial,
                          For::make(k, i64(0), i64(16), ForKind::kSerial, pred_realize)));
  Stmt got = lower_blocks_stmt(with_pred);
  Stmt want = For::make(
      i, i64(0), i64(64), ForKind::kSerial,
      For::make(
          j, i64(0), i64(32), ForKind::kSerial,
          For::make(
              k, i64(0), i64(16), ForKind::kSerial,
              IfThenElse::make(
                  i < 60,
                  SeqStmt::make(
                      {IfThenElse::make(k == i64(0), BufferStore::make(m.C, f32(0), {i, j})),
                       BufferStore::make(m.C, m.C(i, j) + m.A(i, k) * m.B(k, j), {i, j})})))));
  EXPECT_TRUE(structural_equal(got, want)) << to_string(got);
}

TEST(LowerBlocks, PredicatesLeaveTheVectorizedLoopsTheyDoNotUse) {
  // for c in 0..4: for w in vectorized(0, 8): block(c, w) if c < 3: Y[c, w] = X[c, w]
  // (a layout conversion's channel test around its pixels): the test moves outside the w
  // loop; one that uses w, or a serial loop's, stays inside.
  Buffer X = Buffer::make("X", DataType::f32(), std::vector<int64_t>{4, 8});
  Buffer Y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{4, 8});
  Var c("c"), w("w"), vc("vc"), vw("vw");
  Stmt block = make_block(
      "copy", {{vc, i64(0), i64(4), IterKind::kSpatial}, {vw, i64(0), i64(8), IterKind::kSpatial}},
      BufferStore::make(Y, X(vc, vw), {vc, vw}));
  auto nest = [&](Expr pred, ForKind kind) {
    return For::make(c, i64(0), i64(4), ForKind::kSerial,
                     For::make(w, i64(0), i64(8), kind, BlockRealize::make({c, w}, pred, block)));
  };
  Stmt store = BufferStore::make(Y, X(c, w), {c, w});
  Stmt hoisted =
      For::make(c, i64(0), i64(4), ForKind::kSerial,
                IfThenElse::make(c < 3, For::make(w, i64(0), i64(8), ForKind::kVectorized, store)));
  Stmt got = lower_blocks_stmt(nest(c < 3, ForKind::kVectorized));
  EXPECT_TRUE(structural_equal(got, hoisted)) << to_string(got);
  for (auto [pred, kind] : std::vector<std::pair<Expr, ForKind>>{{w < 5, ForKind::kVectorized},
                                                                 {c < 3, ForKind::kSerial}}) {
    Stmt inside = For::make(c, i64(0), i64(4), ForKind::kSerial,
                            For::make(w, i64(0), i64(8), kind, IfThenElse::make(pred, store)));
    got = lower_blocks_stmt(nest(pred, kind));
    EXPECT_TRUE(structural_equal(got, inside)) << to_string(got);
  }
}

TEST(LowerBlocks, AllocBuffersBecomeAllocate) {
  Buffer T = Buffer::make("T", DataType::f32(), std::vector<int64_t>{4}, StorageScope::kLocal);
  Buffer Y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{4});
  Var i("i");
  Stmt body = For::make(i, i64(0), i64(4), ForKind::kSerial, BufferStore::make(T, f32(1), {i}));
  Stmt root = BlockRealize::make({}, yes(), make_block("root", {}, body, Stmt(), {T}));
  Stmt got = lower_blocks_stmt(root);
  EXPECT_TRUE(structural_equal(got, Allocate::make(T, body))) << to_string(got);
}

}  // namespace
}  // namespace ingot::tir
