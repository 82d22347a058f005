// decompose_reduction, cache_read, cache_write, compute_inline, reverse_compute_inline,
// compute_at, reverse_compute_at, storage_align and set_scope: expected IR, numbers, trace round
// trip and error messages.
#include "sched_test_util.h"

namespace ingot::schedule::testing {
namespace {

// The "C_init" block of a matmul: C[vi, vj] = 0 at the given bindings.
Stmt matmul_init(const Matmul& m, const Buffer& out, Expr i, Expr j) {
  Var vi("vi"), vj("vj");
  Stmt b = make_block(
      "C_init",
      {{vi, i64(0), i64(m.M), IterKind::kSpatial}, {vj, i64(0), i64(m.N), IterKind::kSpatial}},
      BufferStore::make(out, f32(0), {vi, vj}));
  return BlockRealize::make({i, j}, yes(), b);
}

// A copy block name[v...] : dst[v] = src[v] at the given bindings.
Stmt copy_block(const std::string& name, const Buffer& src, const Buffer& dst,
                std::vector<Expr> at) {
  std::vector<IterVar> ivs;
  std::vector<Expr> idx;
  for (int d = 0; d < src.ndim(); ++d) {
    Var v("v" + std::to_string(d));
    ivs.push_back({v, i64(0), src->shape[size_t(d)], IterKind::kSpatial});
    idx.push_back(v);
  }
  return BlockRealize::make(at, yes(),
                            make_block(name, ivs, BufferStore::make(dst, src.load(idx), idx)));
}

TEST(DecomposeReduction, InitMovesBeforeTheLoop) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  BlockRV init = s.decompose_reduction(c, l[0]);
  EXPECT_EQ(s.name_of(init), "C_init");
  Var ii("i_init"), ji("j_init"), i("i"), j("j"), k("k");
  PrimFunc want = with_body(
      m.func, root(SeqStmt::make({nest({{ii, 4}, {ji, 6}}, matmul_init(m, m.C, ii, ji)),
                                  nest({{i, 4}, {j, 6}, {k, 3}},
                                       m.realize(i, j, k, yes(), /*with_init=*/false))})));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 6, 3);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(DecomposeReduction, Errors) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  s.decompose_reduction(c, l[2]);
  EXPECT_EQ(schedule_error([&] { s.decompose_reduction(c, l[2]); }),
            "cannot decompose block \"C\": it has no init (not a reduction)");
  Chain ch = make_chain(8);
  Schedule s2(ch.func);
  BlockRV b = s2.get_block("B");
  auto lc = s2.get_loops(s2.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s2.decompose_reduction(b, lc[0]); }),
            "cannot decompose block \"B\": it has no init (not a reduction)");
}

TEST(CacheWrite, BlockWritesALocalCopyThenReverseComputeAt) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  BlockRV wb = s.cache_write(c, 0, "local");
  EXPECT_EQ(s.name_of(wb), "C_local");
  Buffer CL = Buffer::make("C_local", DataType::f32(), {4, 6}, StorageScope::kLocal);
  Matmul ml = m;
  ml.C = CL;
  Var i("i"), j("j"), k("k"), a0("ax0"), a1("ax1");
  PrimFunc want = with_body(
      m.func,
      root(SeqStmt::make({nest({{i, 4}, {j, 6}, {k, 3}}, ml.realize(i, j, k)),
                          nest({{a0, 4}, {a1, 6}}, copy_block("C_local", CL, m.C, {a0, a1}))}),
           {CL}));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 6, 3);
  EXPECT_TRUE(replays(s, m.func));
  // Move the write-back under j: it copies the one element computed there.
  s.reverse_compute_at(wb, l[1]);
  PrimFunc want2 = with_body(
      m.func, root(nest({{i, 4}, {j, 6}},
                        SeqStmt::make({nest({{k, 3}}, ml.realize(i, j, k)),
                                       nest({{a0, 1}, {a1, 1}},
                                            copy_block("C_local", CL, m.C, {i + a0, j + a1}))})),
                   {CL}));
  EXPECT_TRUE(same_ir(s.func(), want2));
  expect_matmul_numbers(s.func(), 4, 6, 3);
  EXPECT_TRUE(replays(s, m.func));
  EXPECT_EQ(schedule_error([&] { s.cache_write(c, 3, "local"); }),
            "cannot cache_write block \"C\": write index 3 is out of range (it writes 1 buffers)");
  EXPECT_EQ(schedule_error([&] { s.cache_write(c, 0, "global"); }),
            "cannot cache_write block \"C\": storage scope \"global\" is not one of \"local\", "
            "\"shared\"");
}

TEST(CacheRead, CopyThenComputeAt) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  BlockRV cr = s.cache_read(c, 1, "shared");  // reads are C, A, B
  EXPECT_EQ(s.name_of(cr), "A_shared");
  expect_matmul_numbers(s.func(), 4, 6, 3);
  s.compute_at(cr, l[0]);
  Buffer AS = Buffer::make("A_shared", DataType::f32(), {4, 3}, StorageScope::kShared);
  Var i("i"), j("j"), k("k"), a0("ax0"), a1("ax1");
  Matmul ms = m;
  ms.A = AS;
  PrimFunc want = with_body(
      m.func,
      root(nest({{i, 4}}, SeqStmt::make({nest({{a0, 1}, {a1, 3}},
                                              copy_block("A_shared", m.A, AS, {i + a0, a1})),
                                         nest({{j, 6}, {k, 3}}, ms.realize(i, j, k))})),
           {AS}));
  EXPECT_TRUE(same_ir(s.func(), want));
  expect_matmul_numbers(s.func(), 4, 6, 3);
  EXPECT_TRUE(replays(s, m.func));
}

// A shared buffer belongs to the thread block: computed under a loop inside one bound to
// threadIdx.x, its copy covers every thread's rows, not the one thread's.
TEST(CacheRead, SharedCopyCoversEveryThreadOfTheBlock) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  s.bind(l[0], "threadIdx.x");
  BlockRV cr = s.cache_read(c, 1, "shared");
  s.compute_at(cr, l[1]);
  auto info = find_block(s.func().body, "A_shared", nullptr);
  ASSERT_TRUE(info.has_value());
  ASSERT_EQ(info->loops.size(), 4u);  // i (threads), j, ax0, ax1
  int64_t rows = 0, cols = 0;
  ASSERT_TRUE(is_const_int(info->loops[2].as<For>()->extent, &rows));
  ASSERT_TRUE(is_const_int(info->loops[3].as<For>()->extent, &cols));
  EXPECT_EQ(rows, 4);  // all of A's rows: one thread's would be 1
  EXPECT_EQ(cols, 3);
  EXPECT_TRUE(replays(s, m.func));
}

TEST(ComputeInline, ProducerValueReplacesLoads) {
  Chain ch = make_chain(8);
  Schedule s(ch.func);
  s.compute_inline(s.get_block("B"));
  Var j("j"), v("vi");
  Stmt c = BlockRealize::make({j}, yes(),
                              make_block("C", {{v, i64(0), i64(8), IterKind::kSpatial}},
                                         BufferStore::make(ch.C, ch.A(v) * 2.0f + 1.0f, {v})));
  EXPECT_TRUE(same_ir(s.func(), with_body(ch.func, root(nest({{j, 8}}, c)))));
  expect_chain_numbers(s.func(), 8);
  EXPECT_TRUE(replays(s, ch.func));
}

TEST(ComputeInline, UnitDimensionsStoreAtZero) {
  // B[0, v] = A[v] * 2 (B is [1, 8], as compute rules store a tensor with a dim of one);
  // C[v] = B[0, v] + 1: inlined, C[v] = A[v] * 2 + 1.
  Buffer A = Buffer::make("A", DataType::f32(), std::vector<int64_t>{8});
  Buffer B = Buffer::make("B", DataType::f32(), std::vector<int64_t>{1, 8}, StorageScope::kLocal);
  Buffer C = Buffer::make("C", DataType::f32(), std::vector<int64_t>{8});
  Var i("i"), j("j"), vb("vb"), vc("vc");
  Stmt produce =
      BlockRealize::make({i}, yes(),
                         make_block("B", {{vb, i64(0), i64(8), IterKind::kSpatial}},
                                    BufferStore::make(B, A.load({vb}) * 2.0f, {i64(0), vb})));
  Stmt consume =
      BlockRealize::make({j}, yes(),
                         make_block("C", {{vc, i64(0), i64(8), IterKind::kSpatial}},
                                    BufferStore::make(C, B.load({i64(0), vc}) + 1.0f, {vc})));
  PrimFunc f;
  f.name = "unit_dims";
  f.params = {A, C};
  f.body = root(SeqStmt::make({nest({{i, 8}}, produce), nest({{j, 8}}, consume)}), {B});
  Schedule s(f);
  s.compute_inline(s.get_block("B"));
  Stmt want =
      BlockRealize::make({j}, yes(),
                         make_block("C", {{vc, i64(0), i64(8), IterKind::kSpatial}},
                                    BufferStore::make(C, A.load({vc}) * 2.0f + 1.0f, {vc})));
  EXPECT_TRUE(same_ir(s.func(), with_body(f, root(nest({{j, 8}}, want)))));
  EXPECT_TRUE(replays(s, f));
}

TEST(ComputeInline, Errors) {
  Chain ch = make_chain(8);
  Schedule s(ch.func);
  EXPECT_EQ(schedule_error([&] { s.compute_inline(s.get_block("C")); }),
            "cannot inline block \"C\": its output \"C\" is a function parameter");
  Matmul m = make_matmul(4, 6, 3);
  Schedule s2(m.func);
  EXPECT_EQ(schedule_error([&] { s2.compute_inline(s2.get_block("C")); }),
            "cannot inline block \"C\": it is a reduction");
}

TEST(ReverseComputeInline, ConsumerFoldsIntoProducer) {
  Chain ch = make_chain(8);
  Schedule s(ch.func);
  s.reverse_compute_inline(s.get_block("C"));
  Var i("i"), v("vi");
  Stmt b = BlockRealize::make({i}, yes(),
                              make_block("B", {{v, i64(0), i64(8), IterKind::kSpatial}},
                                         BufferStore::make(ch.C, ch.A(v) * 2.0f + 1.0f, {v})));
  EXPECT_TRUE(same_ir(s.func(), with_body(ch.func, root(nest({{i, 8}}, b)))));
  expect_chain_numbers(s.func(), 8);
  EXPECT_TRUE(replays(s, ch.func));
  Matmul m = make_matmul(4, 6, 3);
  Schedule s2(m.func);
  EXPECT_EQ(schedule_error([&] { s2.reverse_compute_inline(s2.get_block("C")); }),
            "cannot reverse-inline block \"C\": its body is not a single buffer store");
}

// A consumer reading the producer's buffer at a constant index along a dimension of one (a
// float16 product's rounding pass over its [1, M, N] float32 accumulator) folds into a producer
// that stores there through an iter var whose domain is that one index; along a dimension of
// more it does not.
TEST(ReverseComputeInline, ConstantIndicesMatchAProducersOnePointDomain) {
  for (int64_t rows : {1, 2}) {
    const int64_t n = 6;
    Buffer a = Buffer::make("A", DataType::f32(), {rows, n});
    Buffer b = Buffer::make("B", DataType::f32(), {rows, n});
    Buffer c = Buffer::make("C", DataType::f32(), {1, n});
    Var r("r"), i("i"), j("j"), v0("v0"), v1("v1"), w("w");
    Stmt produce = BlockRealize::make({r, i}, yes(),
                                      make_block("B",
                                                 {{v0, i64(0), i64(rows), IterKind::kSpatial},
                                                  {v1, i64(0), i64(n), IterKind::kSpatial}},
                                                 BufferStore::make(b, a(v0, v1) * 2.0f, {v0, v1})));
    Stmt consume =
        BlockRealize::make({j}, yes(),
                           make_block("C", {{w, i64(0), i64(n), IterKind::kSpatial}},
                                      BufferStore::make(c, b(i64(0), w) + 1.0f, {i64(0), w})));
    PrimFunc f;
    f.name = "rows";
    f.params = {a, c};
    f.body =
        root(SeqStmt::make({nest({{r, rows}, {i, n}}, produce), nest({{j, n}}, consume)}), {b});
    Schedule s(f);
    if (rows == 1) {
      s.reverse_compute_inline(s.get_block("C"));
      Stmt folded = BlockRealize::make(
          {r, i}, yes(),
          make_block(
              "B",
              {{v0, i64(0), i64(1), IterKind::kSpatial}, {v1, i64(0), i64(n), IterKind::kSpatial}},
              BufferStore::make(c, a(v0, v1) * 2.0f + 1.0f, {i64(0), v1})));
      EXPECT_TRUE(same_ir(s.func(), with_body(f, root(nest({{r, 1}, {i, n}}, folded)))));
      EXPECT_TRUE(replays(s, f));
    } else {
      EXPECT_EQ(schedule_error([&] { s.reverse_compute_inline(s.get_block("C")); }),
                "cannot reverse-inline block \"C\": it does not load \"B\" at exactly its iter "
                "vars");
    }
  }
}

TEST(ComputeAt, ProducerComputesTheTileItsConsumerNeeds) {
  Chain ch = make_chain(8);
  Schedule s(ch.func);
  auto lc = s.get_loops(s.get_block("C"));
  auto parts = s.split(lc[0], {std::nullopt, 4});
  s.compute_at(s.get_block("B"), parts[0]);
  Var j0("j_0"), j1("j_1"), a0("ax0");
  Stmt body = nest({{j0, 2}}, SeqStmt::make({nest({{a0, 4}}, ch.produce(j0 * i64(4) + a0)),
                                             nest({{j1, 4}}, ch.consume(j0 * i64(4) + j1))}));
  EXPECT_TRUE(same_ir(s.func(), with_body(ch.func, root(body, {ch.B}))));
  expect_chain_numbers(s.func(), 8);
  EXPECT_TRUE(replays(s, ch.func));
}

TEST(ComputeAt, Errors) {
  Chain ch = make_chain(8);
  Schedule s(ch.func);
  auto lb = s.get_loops(s.get_block("B"));
  EXPECT_EQ(schedule_error([&] { s.compute_at(s.get_block("C"), lb[0]); }),
            "cannot compute_at block \"C\" under loop \"i\": the loop does not come after the "
            "block");
  auto lc = s.get_loops(s.get_block("C"));
  EXPECT_EQ(schedule_error([&] { s.reverse_compute_at(s.get_block("B"), lc[0]); }),
            "cannot reverse_compute_at block \"B\" under loop \"j\": the loop does not come "
            "before the block");
}

TEST(ReverseComputeAt, MaskedTailGetsAPredicate) {
  // Consumer C moved under a split (10 = 3 x 4) loop of producer B: the last tile is masked.
  Chain ch = make_chain(10);
  Schedule s(ch.func);
  auto lb = s.get_loops(s.get_block("B"));
  auto parts = s.split(lb[0], {std::nullopt, 4});
  s.reverse_compute_at(s.get_block("C"), parts[0]);
  Var i0("i_0"), i1("i_1"), a0("ax0");
  Expr at = i0 * i64(4) + a0;
  Stmt consume = ch.consume(at);
  auto* br = consume.as<BlockRealize>();
  consume = BlockRealize::make(br->iter_values, at < i64(10), br->block);
  // The producer keeps split's predicate.
  Stmt want_body =
      nest({{i0, 3}}, SeqStmt::make({nest({{i1, 4}}, add_predicate(ch.produce(i0 * i64(4) + i1),
                                                                   i0 * i64(4) + i1 < i64(10))),
                                     nest({{a0, 4}}, consume)}));
  EXPECT_TRUE(same_ir(s.func(), with_body(ch.func, root(want_body, {ch.B}))));
  expect_chain_numbers(s.func(), 10);
  EXPECT_TRUE(replays(s, ch.func));
}

TEST(ReverseComputeAt, AConstantRegionPastTheDomainIsClippedToIt) {
  // Producer B split 10 = 1 x 3 x 4 (12 instances, the last two masked) and consumer C moved
  // under the outer loop: the region B writes there is [0, 11], constant; C walks its own domain
  // [0, 10) exactly, with no predicate (a dense product's epilogue over padded panels: ConvNeXt's
  // GELU ran over 960 masked columns of 768, 1.2x slower).
  Chain ch = make_chain(10);
  Schedule s(ch.func);
  auto lb = s.get_loops(s.get_block("B"));
  auto parts = s.split(lb[0], {1, std::nullopt, 4});
  s.reverse_compute_at(s.get_block("C"), parts[0]);
  const std::string text = to_string(s.func());
  EXPECT_NE(text.find("for ax0 in range(0, 10):"), std::string::npos) << text;
  const std::string consumer = text.substr(text.find("for ax0 in range(0, 10):"));
  EXPECT_EQ(consumer.find("if "), std::string::npos) << consumer;
  expect_chain_numbers(s.func(), 10);
  EXPECT_TRUE(replays(s, ch.func));
}

TEST(StorageAlign, PadsTheStrideOfAnAllocatedBuffer) {
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  s.cache_write(c, 0, "local");
  s.storage_align(c, 0, 0, 4, 1);
  auto info = find_block(s.func().body, "C", nullptr);
  ASSERT_TRUE(info.has_value());
  const Buffer& cl = info->block->writes[0].buffer;
  EXPECT_EQ(cl->name, "C_local");
  ASSERT_EQ(cl->strides.size(), 2u);
  EXPECT_TRUE(structural_equal(cl->strides[0], i64(9)));  // 6 -> 9: 9 % 4 == 1
  EXPECT_TRUE(structural_equal(cl->strides[1], i64(1)));
  EXPECT_TRUE(root_block(s.func().body)->alloc_buffers[0].same_as(cl));
  EXPECT_TRUE(replays(s, m.func));
  EXPECT_EQ(schedule_error([&] { s.storage_align(s.get_block("C_local"), 0, 0, 4, 1); }),
            "cannot storage_align block \"C_local\": \"C\" is a function parameter");
}

TEST(SetScope, AScratchParameterBecomesTheKernelsOwnLocalBuffer) {
  // cache_read("global") gives A's copy a scratch parameter; set_scope makes it local memory
  // allocated at the root (the parameter gone), the numbers unchanged.
  Matmul m = make_matmul(4, 6, 3);
  Schedule s(m.func);
  BlockRV copy = s.cache_read(s.get_block("C"), 1, "global");  // (reads: C, A, B)
  const size_t params = s.func().params.size();
  ASSERT_EQ(s.func().scratch_params.size(), 1u);
  s.set_scope(copy, 0, "local");
  EXPECT_EQ(s.func().params.size(), params - 1);
  EXPECT_TRUE(s.func().scratch_params.empty());
  const Block* root = root_block(s.func().body);
  ASSERT_EQ(root->alloc_buffers.size(), 1u);
  EXPECT_EQ(root->alloc_buffers[0]->scope, StorageScope::kLocal);
  expect_matmul_numbers(s.func(), m.M, m.N, m.K);
  EXPECT_TRUE(replays(s, m.func));
  EXPECT_EQ(schedule_error([&] { s.set_scope(s.get_block("C"), 0, "local"); }),
            "cannot set_scope of block \"C\": buffer \"C\" is a parameter of the kernel");
}

}  // namespace
}  // namespace ingot::schedule::testing
