// get_block / get_loops / get_child_blocks, split, fuse, reorder, parallel, vectorize, unroll,
// warp_mma, bind and annotate: expected IR, numbers, trace round trip and error messages.
#include "sched_test_util.h"

namespace ingot::schedule::testing {
namespace {

TEST(GetBlock, HandlesResolveAndUnknownNamesFail) {
  Matmul m = make_matmul(8, 8, 4);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  EXPECT_EQ(s.name_of(c), "C");
  std::vector<LoopRV> loops = s.get_loops(c);
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_EQ(s.loop_var(loops[2]).name(), "k");
  EXPECT_EQ(s.get_child_blocks(loops[0]).size(), 1u);
  EXPECT_EQ(schedule_error([&] { s.get_block("D"); }), "no block named \"D\" in matmul");
  EXPECT_EQ(s.trace().to_python_script(),
            "b0 = sch.get_block(\"C\")\n"
            "l1, l2, l3 = sch.get_loops(b0)\n"
            "b4 = sch.get_child_blocks(l1)\n");
}

TEST(Split, DivisibleFactorsGiveANestAndReplay) {
  Matmul m = make_matmul(16, 8, 4);
  Schedule s(m.func);
  auto loops = s.get_loops(s.get_block("C"));
  auto parts = s.split(loops[0], {std::nullopt, 4});
  ASSERT_EQ(parts.size(), 2u);
  Var i0("i_0"), i1("i_1"), j("j"), k("k");
  PrimFunc want = with_body(
      m.func, root(nest({{i0, 4}, {i1, 4}, {j, 8}, {k, 4}}, m.realize(i0 * i64(4) + i1, j, k))));
  EXPECT_TRUE(same_ir(s.func(), want));
  EXPECT_TRUE(replays(s, m.func));
  expect_matmul_numbers(s.func(), 16, 8, 4);
  EXPECT_EQ(s.trace().to_python_script(),
            "b0 = sch.get_block(\"C\")\n"
            "l1, l2, l3 = sch.get_loops(b0)\n"
            "l4, l5 = sch.split(l1, factors=[None, 4])\n");
}

TEST(Split, NonDivisibleFactorsAddAPredicate) {
  Matmul m = make_matmul(10, 8, 4);
  Schedule s(m.func);
  auto loops = s.get_loops(s.get_block("C"));
  s.split(loops[0], {std::nullopt, 4});
  Var i0("i_0"), i1("i_1"), j("j"), k("k");
  Expr iv = i0 * i64(4) + i1;
  PrimFunc want = with_body(
      m.func, root(nest({{i0, 3}, {i1, 4}, {j, 8}, {k, 4}}, m.realize(iv, j, k, iv < i64(10)))));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 10, 8, 4);
  EXPECT_TRUE(replays(s, m.func));
}

// A loop over a symbolic extent n (a sequence length): the inferred factor is ceil(n / 4) and the
// mask is there unless the other factors are 1 (the inferred factor is then n itself); every
// factor given is refused.
TEST(Split, SymbolicExtentInfersTheCeilingAndMasks) {
  Var n("n"), i("i"), vi("vi");
  Buffer a = Buffer::make("A", DataType::f32(), {Expr(n)});
  Stmt store = BufferStore::make(a, a.load({vi}) * f32(2), {vi});
  Stmt blk =
      BlockRealize::make({i}, yes(), make_block("S", {{vi, i64(0), n, IterKind::kSpatial}}, store));
  PrimFunc f;
  f.name = "scale";
  f.params = {a};
  f.body = For::make(i, i64(0), n, ForKind::kSerial, blk);
  Schedule s(f);
  auto loops = s.get_loops(s.get_block("S"));
  EXPECT_EQ(schedule_error([&] {
              s.split(loops[0], {2, 4});
            }),
            "cannot split loop \"i\": its extent n is symbolic, so one factor must be None");
  auto parts = s.split(loops[0], {std::nullopt, 4});
  ASSERT_EQ(parts.size(), 2u);
  Var i0("i_0"), i1("i_1");
  Expr iv = i0 * i64(4) + i1;
  Stmt want_blk = BlockRealize::make({iv}, iv < n,
                                     make_block("S", {{vi, i64(0), n, IterKind::kSpatial}}, store));
  Stmt want = For::make(i0, i64(0), floordiv(Expr(n) + i64(3), i64(4)), ForKind::kSerial,
                        For::make(i1, i64(0), i64(4), ForKind::kSerial, want_blk));
  EXPECT_TRUE(same_ir(s.func(), with_body(f, root(want))));
  EXPECT_TRUE(replays(s, f));
  // Split by 1: (i_1_0 of extent n) * 1 + i_1_1, no mask (one-row tiles of a product over n rows).
  Schedule by_one(f);
  auto ones = by_one.split(by_one.get_loops(by_one.get_block("S"))[0], {std::nullopt, 1});
  ASSERT_EQ(ones.size(), 2u);
  Expr one_iv = i0 * i64(1) + i1;
  Stmt one_blk = BlockRealize::make({one_iv}, yes(),
                                    make_block("S", {{vi, i64(0), n, IterKind::kSpatial}}, store));
  Stmt want_one = For::make(i0, i64(0), Expr(n), ForKind::kSerial,
                            For::make(i1, i64(0), i64(1), ForKind::kSerial, one_blk));
  EXPECT_TRUE(same_ir(by_one.func(), with_body(f, root(want_one))));
  EXPECT_TRUE(replays(by_one, f));
}

TEST(Split, Errors) {
  Matmul m = make_matmul(10, 8, 4);
  Schedule s(m.func);
  auto loops = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] {
              s.split(loops[0], {std::nullopt, std::nullopt});
            }),
            "cannot split loop \"i\": more than one factor is None");
  EXPECT_EQ(schedule_error([&] {
              s.split(loops[0], {2, 4});
            }),
            "cannot split loop \"i\": the factors multiply to 8, less than its extent 10");
  EXPECT_EQ(schedule_error([&] {
              s.split(loops[0], {0, 4});
            }),
            "cannot split loop \"i\": factor 0 is not positive");
  s.split(loops[0], {5, 2});
  EXPECT_EQ(schedule_error([&] {
              s.split(loops[0], {5, 2});
            }),
            "loop \"i\" no longer exists (a split, fuse or inline replaced it)");
}

TEST(Fuse, AdjacentLoopsBecomeOne) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  auto loops = s.get_loops(s.get_block("C"));
  s.fuse({loops[0], loops[1]});
  Var f("i_j_fused"), k("k");
  PrimFunc want = with_body(
      m.func,
      root(nest({{f, 24}, {k, 3}}, m.realize(floordiv(f, i64(6)), floormod(f, i64(6)), k))));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 6, 3);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(Fuse, NonAdjacentLoopsFail) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  auto loops = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] {
              s.fuse({loops[0], loops[2]});
            }),
            "cannot fuse loops \"i\" and \"k\": \"k\" is not the only statement directly inside "
            "\"i\"");
}

TEST(Reorder, PermutesANest) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  s.reorder({l[2], l[0]});
  Var i("i"), j("j"), k("k");
  PrimFunc want = with_body(m.func, root(nest({{k, 3}, {j, 6}, {i, 4}}, m.realize(i, j, k))));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 6, 3);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(Reorder, LoopsOfDifferentNestsFail) {
  Chain c = make_chain(8);
  Schedule s(c.func);
  auto a = s.get_loops(s.get_block("B"));
  auto b = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] {
              s.reorder({b[0], a[0]});
            }),
            "cannot reorder loops \"j\" and \"i\": they are not in one perfect nest (loop \"j\" "
            "does not contain only the next loop)");
}

TEST(LoopKinds, ParallelVectorizeUnroll) {
  Matmul m = make_matmul(4, 8, 3);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  s.parallel(l[0]);
  s.reorder({l[2], l[1]});
  s.vectorize(l[1]);
  s.unroll(l[2]);
  Var i("i"), j("j"), k("k");
  PrimFunc want =
      with_body(m.func, root(nest({{i, 4}, {k, 3}, {j, 8}}, m.realize(i, j, k),
                                  {ForKind::kParallel, ForKind::kUnrolled, ForKind::kVectorized})));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 8, 3);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(LoopKinds, OutlineMarksASerialLoopAndReplays) {
  Matmul m = make_matmul(4, 8, 3);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  s.parallel(l[0]);
  s.outline(l[1]);
  Var i("i"), j("j"), k("k");
  PrimFunc want =
      with_body(m.func, root(nest({{i, 4}, {j, 8}, {k, 3}}, m.realize(i, j, k),
                                  {ForKind::kParallel, ForKind::kOutlined, ForKind::kSerial})));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 8, 3);
  EXPECT_TRUE(replays(s, m.func));
  EXPECT_EQ(schedule_error([&] { s.outline(l[0]); }), "cannot outline loop \"i\": it is parallel");
}

// C[i, j] += float(A[i, k]) * float(B[k, j]) over extents (2, 2, 16), A and B float16, C
// float32, no init: one lane's share of a warp's m16n8k16 product.
// `k_limit` > 0: the block's predicate masks the steps of k from it on.
PrimFunc half_product(int64_t m, int64_t n, int64_t k, DataType operand = DataType::f16(),
                      int64_t k_limit = 0) {
  Buffer a = Buffer::make("A", operand, {m, k}), b = Buffer::make("B", operand, {k, n});
  Buffer c = Buffer::make("C", DataType::f32(), {m, n});
  Var vi("vi"), vj("vj"), vk("vk"), i("i"), j("j"), kk("k");
  Stmt body = BufferStore::make(
      c, c(vi, vj) + cast(DataType::f32(), a(vi, vk)) * cast(DataType::f32(), b(vk, vj)), {vi, vj});
  Stmt blk = make_block("C",
                        {{vi, i64(0), i64(m), IterKind::kSpatial},
                         {vj, i64(0), i64(n), IterKind::kSpatial},
                         {vk, i64(0), i64(k), IterKind::kReduce}},
                        body);
  PrimFunc f;
  f.name = "half_product";
  f.params = {a, b, c};
  Expr pred = k_limit > 0 ? Expr(kk < i64(k_limit)) : yes();
  f.body = nest({{i, m}, {j, n}, {kk, k}}, BlockRealize::make({i, j, kk}, pred, blk));
  return f;
}

TEST(LoopKinds, WarpMmaMarksALanesShareOfTheInstruction) {
  PrimFunc f = half_product(2, 2, 16);
  Schedule s(f);
  auto l = s.get_loops(s.get_block("C"));
  s.warp_mma(l[0]);
  auto li = find_loop(s.func().body, s.loop_var(l[0]).node());
  ASSERT_TRUE(li.has_value());
  EXPECT_EQ(li->node->kind, ForKind::kWarpMma);
  EXPECT_TRUE(replays(s, f));
}

TEST(LoopKinds, WarpMmaNeedsTheInstructionsShapeAndTypes) {
  {
    Schedule s(half_product(4, 2, 16));
    auto l = s.get_loops(s.get_block("C"));
    EXPECT_EQ(schedule_error([&] { s.warp_mma(l[0]); }),
              "cannot make loop \"i\" a warp's mma: it is not a chain of loops of extents 2, 2, "
              "16 from 0");
    EXPECT_EQ(schedule_error([&] { s.warp_mma(l[1]); }),
              "cannot make loop \"j\" a warp's mma: it is not a chain of loops of extents 2, 2, "
              "16 from 0");
  }
  {
    Schedule s(half_product(2, 2, 16, DataType::f32()));
    auto l = s.get_loops(s.get_block("C"));
    EXPECT_EQ(schedule_error([&] { s.warp_mma(l[0]); }),
              "cannot make loop \"i\" a warp's mma: its body is not one init-free block "
              "accumulating a product of two float16 values in float32");
  }
  {
    Schedule s(half_product(2, 2, 16, DataType::f16(), 10));
    auto l = s.get_loops(s.get_block("C"));
    EXPECT_EQ(schedule_error([&] { s.warp_mma(l[0]); }),
              "cannot make loop \"i\" a warp's mma: its block's predicate masks steps of k");
  }
  {
    Schedule s(half_product(2, 2, 16));
    auto l = s.get_loops(s.get_block("C"));
    s.unroll(l[0]);
    EXPECT_EQ(schedule_error([&] { s.warp_mma(l[0]); }),
              "cannot make loop \"i\" a warp's mma: it is unrolled");
  }
}

TEST(LoopKinds, ReductionLoopsCannotBeParallelOrVectorized) {
  Matmul m = make_matmul(4, 8, 3);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s.parallel(l[2]); }),
            "cannot parallelize loop \"k\": it carries the reduction iter var \"vk\" of block "
            "\"C\"");
  EXPECT_EQ(schedule_error([&] { s.vectorize(l[2]); }),
            "cannot vectorize loop \"k\": it carries the reduction iter var \"vk\" of block \"C\"");
  s.parallel(l[0]);
  EXPECT_EQ(schedule_error([&] { s.unroll(l[0]); }),
            "cannot unroll loop \"i\": it is already parallel");
}

TEST(LoopKinds, ASymbolicReductionLoopMayBeVectorized) {
  // s[0] += x[k] over k < n, n symbolic: marked for the backend's loop vectorizer (partial sums
  // in lanes); the same loop over a constant extent stays refused (above).
  Var n("n", DataType::i64()), k("k"), vk("vk");
  Buffer x = Buffer::make("x", DataType::f32(), std::vector<Expr>{n});
  Buffer acc = Buffer::make("s", DataType::f32(), std::vector<int64_t>{1});
  Stmt blk = make_block("S", {{vk, i64(0), n, IterKind::kReduce}},
                        BufferStore::make(acc, acc(i64(0)) + x(vk), {i64(0)}),
                        BufferStore::make(acc, f32(0), {i64(0)}));
  PrimFunc f{"sum",
             {x, acc},
             For::make(k, i64(0), n, ForKind::kSerial, BlockRealize::make({k}, yes(), blk))};
  f.shape_vars = {n};
  Schedule s(f);
  auto l = s.get_loops(s.get_block("S"));
  s.vectorize(l[0]);
  EXPECT_NE(to_string(s.func()).find("vectorized(0, n)"), std::string::npos) << to_string(s.func());
}

TEST(Bind, ThreadAxesAreChecked) {
  Matmul m = make_matmul(4, 8, 3);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  s.bind(l[0], "blockIdx.x");
  s.bind(l[1], "threadIdx.x");
  Var i("i"), j("j"), k("k");
  Stmt body = For::make(
      i, i64(0), i64(4), ForKind::kThreadBinding,
      For::make(j, i64(0), i64(8), ForKind::kThreadBinding,
                For::make(k, i64(0), i64(3), ForKind::kSerial, m.realize(i, j, k)), "threadIdx.x"),
      "blockIdx.x");
  EXPECT_TRUE(same_ir(s.func(), with_body(m.func, root(body))));
  EXPECT_TRUE(replays(s, m.func));
  EXPECT_EQ(schedule_error([&] { s.bind(l[2], "warp.x"); }),
            "cannot bind loop \"k\" to \"warp.x\": not a thread axis (use blockIdx.x/y/z or "
            "threadIdx.x/y/z)");
  EXPECT_EQ(schedule_error([&] { s.bind(l[2], "threadIdx.y"); }),
            "cannot bind loop \"k\" to threadIdx.y: it carries the reduction iter var \"vk\" of "
            "block \"C\" (only a threadIdx loop directly around a block that just combines into "
            "a local buffer reduces across threads)");
  Matmul m2 = make_matmul(4, 8, 3);
  Schedule s2(m2.func);
  auto l2 = s2.get_loops(s2.get_block("C"));
  s2.bind(l2[0], "threadIdx.x");
  EXPECT_EQ(schedule_error([&] { s2.bind(l2[1], "threadIdx.x"); }),
            "cannot bind loop \"j\" to threadIdx.x: loop \"i\" in the same nest is bound to it "
            "with another extent");
  // The same threads again (a cooperative copy under the loop of its readers): same extent.
  Matmul m3 = make_matmul(4, 4, 3);
  Schedule s3(m3.func);
  auto l3 = s3.get_loops(s3.get_block("C"));
  s3.bind(l3[0], "threadIdx.x");
  s3.bind(l3[1], "threadIdx.x");
  EXPECT_TRUE(replays(s3, m3.func));
}

TEST(Annotate, SetsABlockAnnotation) {
  Matmul m = make_matmul(4, 8, 3);
  Schedule s(m.func);
  s.annotate(s.get_block("C"), "pragma_unroll", "16");
  auto l = s.get_loops(s.get_block("C"));
  ASSERT_EQ(l.size(), 3u);
  auto info = find_block(s.func().body, "C", nullptr);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->block->annotations.at("pragma_unroll"), "16");
  EXPECT_TRUE(replays(s, m.func));
  EXPECT_EQ(schedule_error([&] { s.annotate(s.get_block("C"), "", "x"); }),
            "cannot annotate block \"C\": the key is empty");
}

}  // namespace
}  // namespace ingot::schedule::testing
