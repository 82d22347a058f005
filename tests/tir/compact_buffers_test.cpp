// compact_buffers: shared buffers shrink to a thread block's region and local ones to a thread's,
// their Allocates move to the deepest loop around every access, and buffers whose region is
// not a constant-size box stay as they are.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"
#include "tir/transforms/compact_buffers.h"
#include "tir/verify.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

Buffer buffer(const char* name, std::vector<int64_t> shape,
              StorageScope scope = StorageScope::kGlobal) {
  return Buffer::make(name, DataType::f32(), shape, scope);
}

Stmt serial(const Var& v, int64_t extent, Stmt body) {
  return For::make(v, i64(0), i64(extent), ForKind::kSerial, std::move(body));
}
Stmt bound(const Var& v, int64_t extent, const char* tag, Stmt body) {
  return For::make(v, i64(0), i64(extent), ForKind::kThreadBinding, std::move(body), tag);
}

// The Allocate of the buffer named `name`, the loop directly around it and every access to it.
struct BufferUse {
  const Allocate* alloc = nullptr;
  std::string enclosing_loop;  // "" when no loop is around the Allocate
  std::vector<std::vector<Expr>> accesses;
  std::vector<int64_t> shape() const {
    std::vector<int64_t> out;
    for (const Expr& d : alloc->buffer->shape) {
      int64_t v = -1;
      EXPECT_TRUE(is_const_int(d, &v));
      out.push_back(v);
    }
    return out;
  }
};

BufferUse find_buffer(const Stmt& s, const std::string& name) {
  struct Finder : IRVisitor {
    std::string name;
    BufferUse use;
    std::vector<std::string> loops;
    void visit_For(const For* op, const Stmt& st) override {
      loops.push_back(op->loop_var.name());
      IRVisitor::visit_For(op, st);
      loops.pop_back();
    }
    void visit_Allocate(const Allocate* op, const Stmt& st) override {
      if (op->buffer->name == name) {
        EXPECT_EQ(use.alloc, nullptr) << name << " is allocated twice";
        use.alloc = op;
        use.enclosing_loop = loops.empty() ? "" : loops.back();
      }
      IRVisitor::visit_Allocate(op, st);
    }
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      if (op->buffer->name == name) use.accesses.push_back(op->indices);
      IRVisitor::visit_BufferLoad(op, e);
    }
    void visit_BufferStore(const BufferStore* op, const Stmt& st) override {
      IRVisitor::visit_BufferStore(op, st);  // the value's loads first, as written
      if (op->buffer->name == name) use.accesses.push_back(op->indices);
    }
  } finder;
  finder.name = name;
  finder.visit(s);
  EXPECT_NE(finder.use.alloc, nullptr) << "no Allocate of " << name;
  return finder.use;
}

// Each access's indices equal `want` (simplified alike), access by access.
void expect_indices(const BufferUse& use, const std::vector<std::vector<Expr>>& want) {
  ASSERT_EQ(use.accesses.size(), want.size());
  for (size_t a = 0; a < want.size(); ++a) {
    ASSERT_EQ(use.accesses[a].size(), want[a].size());
    for (size_t d = 0; d < want[a].size(); ++d) {
      Expr w = arith::simplify(want[a][d]);
      EXPECT_TRUE(structural_equal(use.accesses[a][d], w))
          << "access " << a << " dim " << d << ": " << to_string(use.accesses[a][d]) << ", want "
          << to_string(w);
    }
  }
}

// The tiled GPU matmul of the pass's design note, after lower_blocks: A_shared and C_local
// allocated around the whole kernel with the full shape of A and C.
struct Matmul {
  Buffer a = buffer("A", {1024, 1024});
  Buffer b = buffer("B", {1024, 1024});
  Buffer c = buffer("C", {1024, 1024});
  Buffer a_shared = buffer("A_shared", {1024, 1024}, StorageScope::kShared);
  Buffer c_local = buffer("C_local", {1024, 1024}, StorageScope::kLocal);
  Var by{"by"}, bx{"bx"}, ty{"ty"}, tx{"tx"}, ko{"ko"}, f{"f"}, ty2{"ty2"}, tx2{"tx2"}, ki{"ki"};
  Var ii0{"ii0"}, jj0{"jj0"}, ii1{"ii1"}, jj1{"jj1"}, ii2{"ii2"}, jj2{"jj2"};

  Expr row(const Var& ii) const { return by * 64 + ty * 4 + ii; }
  Expr col(const Var& jj) const { return bx * 64 + tx * 4 + jj; }
  Expr fetched() const { return f * 256 + ty2 * 16 + tx2; }

  PrimFunc func() const {
    Stmt init =
        serial(ii0, 4, serial(jj0, 4, BufferStore::make(c_local, f32(0), {row(ii0), col(jj0)})));
    Expr a_row = by * 64 + floordiv(fetched(), i64(8)),
         a_col = ko * 8 + floormod(fetched(), i64(8));
    Stmt fetch = serial(f, 2,
                        bound(ty2, 16, "threadIdx.y",
                              bound(tx2, 16, "threadIdx.x",
                                    BufferStore::make(a_shared, a(a_row, a_col), {a_row, a_col}))));
    Expr update =
        c_local(row(ii1), col(jj1)) + a_shared(row(ii1), ko * 8 + ki) * b(ko * 8 + ki, col(jj1));
    Stmt compute = serial(
        ki, 8,
        serial(ii1, 4, serial(jj1, 4, BufferStore::make(c_local, update, {row(ii1), col(jj1)}))));
    Stmt writeback = serial(
        ii2, 4,
        serial(jj2, 4, BufferStore::make(c, c_local(row(ii2), col(jj2)), {row(ii2), col(jj2)})));
    Stmt thread_body =
        SeqStmt::make({init, serial(ko, 128, SeqStmt::make({fetch, compute})), writeback});
    Stmt kernel =
        bound(by, 16, "blockIdx.y",
              bound(bx, 16, "blockIdx.x",
                    bound(ty, 16, "threadIdx.y", bound(tx, 16, "threadIdx.x", thread_body))));
    return PrimFunc{"matmul", {a, b, c}, Allocate::make(a_shared, Allocate::make(c_local, kernel))};
  }
};

TEST(CompactBuffers, MatmulSharedPerBlockLocalPerThread) {
  Matmul m;
  PrimFunc out = compact_buffers(m.func());
  verify_prim_func(out);
  // Both Allocates left the top of the kernel.
  EXPECT_TRUE(out.body.as<For>() != nullptr) << to_string(out);

  BufferUse a_shared = find_buffer(out.body, "A_shared");
  EXPECT_EQ(a_shared.shape(), (std::vector<int64_t>{64, 8}));
  EXPECT_EQ(a_shared.alloc->buffer->scope, StorageScope::kShared);
  EXPECT_EQ(a_shared.enclosing_loop, "ko");
  // Indices less by*64 and ko*8: the fetch store, then the compute load.
  expect_indices(a_shared, {{floordiv(m.fetched(), i64(8)), floormod(m.fetched(), i64(8))},
                            {m.ty * 4 + m.ii1, m.ki}});

  BufferUse c_local = find_buffer(out.body, "C_local");
  EXPECT_EQ(c_local.shape(), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(c_local.alloc->buffer->scope, StorageScope::kLocal);
  EXPECT_EQ(c_local.enclosing_loop, "tx");
  EXPECT_TRUE(c_local.alloc->body.as<SeqStmt>() != nullptr) << "C_local wraps all of tx's body";
  // init store, update load, update store, writeback load
  expect_indices(c_local, {{m.ii0, m.jj0}, {m.ii1, m.jj1}, {m.ii1, m.jj1}, {m.ii2, m.jj2}});
}

TEST(CompactBuffers, IsIdempotent) {
  Matmul m;
  PrimFunc once = compact_buffers(m.func());
  PrimFunc twice = compact_buffers(once);
  EXPECT_TRUE(structural_equal(once, twice)) << to_string(twice);
  EXPECT_TRUE(twice.body.same_as(once.body));
}

TEST(CompactBuffers, LocalBufferUnderTwoThreadLoopsStaysPerThread) {
  // Two threadIdx.x loops at the same level are the same threads: thread t writes row t and
  // reads it back, so each thread needs one row, not all 16.
  Buffer a = buffer("A", {256});
  Buffer b = buffer("B", {256});
  Buffer l = buffer("L", {16, 4}, StorageScope::kLocal);
  Var bx("bx"), tx("tx"), tx2("tx2"), i("i"), j("j");
  Stmt produce = bound(tx, 16, "threadIdx.x",
                       serial(i, 4, BufferStore::make(l, a(bx * 64 + tx * 4 + i), {tx, i})));
  Stmt consume =
      bound(tx2, 16, "threadIdx.x",
            serial(j, 4, BufferStore::make(b, l(tx2, j) * 2.0, {bx * 64 + tx2 * 4 + j})));
  PrimFunc f{"per_thread",
             {a, b},
             Allocate::make(l, bound(bx, 4, "blockIdx.x", SeqStmt::make({produce, consume})))};
  PrimFunc out = compact_buffers(f);
  verify_prim_func(out);
  BufferUse use = find_buffer(out.body, "L");
  EXPECT_EQ(use.shape(), (std::vector<int64_t>{1, 4})) << to_string(out);
  EXPECT_EQ(use.enclosing_loop, "bx");
  expect_indices(use, {{i64(0), i}, {i64(0), j}});
}

TEST(CompactBuffers, SharedBufferUnionsThreadsAndSeesThroughLets) {
  // let t = tx * 2: each thread touches one element, the block 0..30 of them.
  Buffer a = buffer("A", {64});
  Buffer s = buffer("S", {64}, StorageScope::kShared);
  Var tx("tx"), t("t");
  Stmt body =
      bound(tx, 16, "threadIdx.x", LetStmt::make(t, tx * 2, BufferStore::make(s, a(t), {t})));
  PrimFunc out = compact_buffers(PrimFunc{"let", {a}, Allocate::make(s, body)});
  verify_prim_func(out);
  BufferUse use = find_buffer(out.body, "S");
  EXPECT_EQ(use.shape(), (std::vector<int64_t>{31})) << to_string(out);
  EXPECT_EQ(use.enclosing_loop, "tx");
  expect_indices(use, {{tx * 2}});
}

TEST(CompactBuffers, RegionOfNoConstantSizeLeavesTheBufferAlone) {
  Buffer a = buffer("A", {1024});
  Buffer l = buffer("L", {64}, StorageScope::kLocal);
  Buffer m = buffer("M", {64}, StorageScope::kLocal);
  Var n("n"), tx("tx"), i("i"), j("j"), k("k");
  // L[i * n]: the relaxation does not bound a product of a loop and a variable.
  // M[j], M[k] for j, k < n: a region of n elements.
  auto kernel = [&](Expr l_index, Expr m_extent) {
    Stmt body = bound(tx, 16, "threadIdx.x",
                      SeqStmt::make({serial(i, 4, BufferStore::make(l, a(tx * 4 + i), {l_index})),
                                     For::make(j, i64(0), m_extent, ForKind::kSerial,
                                               BufferStore::make(m, l(j), {j})),
                                     For::make(k, i64(0), m_extent, ForKind::kSerial,
                                               BufferStore::make(a, m(k), {tx * 8 + k}))}));
    return Allocate::make(l, Allocate::make(m, body));
  };
  Stmt s = kernel(i * n, n);
  Stmt out = compact_buffers_stmt(s);
  EXPECT_TRUE(out.same_as(s)) << to_string(out);

  // The same kernel with constants compacts both (the check above fails for the right reason).
  Stmt compacted = compact_buffers_stmt(kernel(i * 2, i64(8)));
  EXPECT_EQ(find_buffer(compacted, "L").shape(), (std::vector<int64_t>{8})) << to_string(compacted);
  EXPECT_EQ(find_buffer(compacted, "M").shape(), (std::vector<int64_t>{8}));
}

TEST(CompactBuffers, VectorAccessCoversItsLanes) {
  // A Ramp index with a constant stride covers its first to its last lane: L shrinks to 4
  // elements (taken as a point, its 4 lanes would get one), the Ramps kept.
  Buffer a = buffer("A", {1024});
  Buffer l = buffer("L", {64}, StorageScope::kLocal);
  Var tx("tx");
  Expr lanes = Ramp::make(i64(0), i64(1), 4);
  Stmt s = Allocate::make(
      l, bound(tx, 16, "threadIdx.x",
               SeqStmt::make({BufferStore::make(l, Broadcast::make(f32(1), 4), {lanes}),
                              BufferStore::make(a, l(lanes), {Ramp::make(tx * 4, i64(1), 4)})})));
  Stmt out = compact_buffers_stmt(s);
  BufferUse use = find_buffer(out, "L");
  EXPECT_EQ(use.shape(), (std::vector<int64_t>{4})) << to_string(out);
  for (const auto& idx : use.accesses) EXPECT_NE(idx.at(0).as<Ramp>(), nullptr) << to_string(out);
  // A gather (a vector index that is no Ramp) still leaves the buffer alone.
  Expr gather = Broadcast::make(i64(3), 4);
  Stmt g = Allocate::make(
      l, bound(tx, 16, "threadIdx.x",
               SeqStmt::make({BufferStore::make(l, Broadcast::make(f32(1), 4), {gather}),
                              BufferStore::make(a, l(gather), {Ramp::make(tx * 4, i64(1), 4)})})));
  EXPECT_TRUE(compact_buffers_stmt(g).same_as(g)) << to_string(compact_buffers_stmt(g));
}

TEST(CompactBuffers, LocalOnlyModeLeavesOtherScopesAlone) {
  // The CPU form: a local tile per iteration of the loop around its accesses moves into it and
  // shrinks to the strip (8 rows of 16 lanes); a shared buffer with the same accesses stays.
  Buffer a = buffer("A", {64, 16});
  Buffer l = buffer("L", {64, 16}, StorageScope::kLocal);
  Buffer g = buffer("G", {64, 16}, StorageScope::kShared);
  Var i("i"), r("r");
  auto strip = [&](const Buffer& t) {
    Expr row = i * 8 + r;
    Expr lanes = Ramp::make(i64(0), i64(1), 16);
    return Allocate::make(
        t,
        serial(i, 8,
               SeqStmt::make(
                   {serial(r, 8, BufferStore::make(t, Broadcast::make(f32(1), 16), {row, lanes})),
                    serial(r, 8, BufferStore::make(a, t(row, lanes), {row, lanes}))})));
  };
  Stmt out = compact_buffers_stmt(strip(l), /*local_only=*/true);
  BufferUse use = find_buffer(out, "L");
  EXPECT_EQ(use.shape(), (std::vector<int64_t>{8, 16})) << to_string(out);
  EXPECT_EQ(use.enclosing_loop, "i");
  Stmt kept = strip(g);
  EXPECT_TRUE(compact_buffers_stmt(kept, /*local_only=*/true).same_as(kept));
}

TEST(CompactBuffers, DataDependentIndexLeavesTheBufferAlone) {
  // I[0] may change between the two accesses, so L[I[0]] is no fixed point.
  Buffer a = buffer("A", {1024});
  Buffer idx = Buffer::make("I", DataType::i64(), std::vector<int64_t>{4});
  Buffer l = buffer("L", {64}, StorageScope::kLocal);
  Var tx("tx");
  Stmt s = Allocate::make(l, bound(tx, 16, "threadIdx.x",
                                   SeqStmt::make({BufferStore::make(l, f32(1), {idx(i64(0))}),
                                                  BufferStore::make(idx, tx, {i64(0)}),
                                                  BufferStore::make(a, l(idx(i64(0))), {tx})})));
  EXPECT_TRUE(compact_buffers_stmt(s).same_as(s)) << to_string(compact_buffers_stmt(s));
}

TEST(CompactBuffers, ThreadLoopsOfOneTagWithDifferentRangesLeaveTheBufferAlone) {
  // 8 threads fill S, 16 read it: the first loop's range is no bound for the second's.
  Buffer a = buffer("A", {64});
  Buffer s = buffer("S", {64}, StorageScope::kShared);
  Var tx("tx"), tx2("tx2");
  Stmt body = Allocate::make(
      s, SeqStmt::make({bound(tx, 8, "threadIdx.x", BufferStore::make(s, a(tx), {tx})),
                        bound(tx2, 16, "threadIdx.x", BufferStore::make(a, s(tx2), {tx2}))}));
  EXPECT_TRUE(compact_buffers_stmt(body).same_as(body)) << to_string(compact_buffers_stmt(body));
}

TEST(CompactBuffers, AThreadLoopOfOneIsTheFirstThreadOnly) {
  // A GEMV's tail: 8 rows of threads sum into per-thread L, then a threadIdx.y loop of one
  // (the first row of threads only) writes L out. The loop of one is no other range for the
  // tag: its index is 0, so L still shrinks to one element per thread, as without it.
  Buffer a = buffer("A", {8, 32});
  Buffer b = buffer("B", {32});
  Buffer l = buffer("L", {32}, StorageScope::kLocal);
  Var tx("tx"), ty("ty"), ty1("ty1");
  Stmt sum = bound(ty, 8, "threadIdx.y", BufferStore::make(l, l(tx) + a(ty, tx), {tx}));
  Stmt write = bound(ty1, 1, "threadIdx.y", BufferStore::make(b, l(tx + ty1), {tx + ty1}));
  PrimFunc f{"first_row",
             {a, b},
             Allocate::make(l, bound(tx, 32, "threadIdx.x", SeqStmt::make({sum, write})))};
  PrimFunc out = compact_buffers(f);
  verify_prim_func(out);
  BufferUse use = find_buffer(out.body, "L");
  EXPECT_EQ(use.shape(), (std::vector<int64_t>{1})) << to_string(out);
  EXPECT_EQ(use.enclosing_loop, "tx");
  expect_indices(use, {{i64(0)}, {i64(0)}, {i64(0)}});
}

TEST(CompactBuffers, NoAllocationReturnsTheSameBody) {
  Buffer a = buffer("A", {64});
  Var bx("bx"), tx("tx");
  PrimFunc f{"copy",
             {a},
             bound(bx, 4, "blockIdx.x",
                   bound(tx, 16, "threadIdx.x",
                         BufferStore::make(a, a(bx * 16 + tx) + 1.0, {bx * 16 + tx})))};
  EXPECT_TRUE(compact_buffers(f).body.same_as(f.body));
}

}  // namespace
}  // namespace ingot::tir
