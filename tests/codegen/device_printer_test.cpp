// The GPU lowering's split into device functions and the OpenCL C / CUDA C++ printer, on
// hand-built loop IR: one launch per top-level bound nest, one thread for the rest, conditions
// carried into each launch, no launch for a kernel that stores nothing, floor division printed
// as C division only where both sides are known non-negative; thread loops as thread indices
// (masked below the block's extent), shared memory declared per function with barriers where
// threads exchange data through it, and no barrier where not all threads would reach it; a
// reduction across threads as a tree over shared memory per row of the block.
#include <gtest/gtest.h>

#include "codegen/gpu/device_lowering.h"
#include "codegen/gpu/device_printer.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

Expr i64(int64_t v) {
  return IntImm::make(DataType::i64(), v);
}

// y[i] = x[i] * 2 over 100 elements, bound as 4 blocks of 32 threads (the tail masked), then a
// one-thread statement y[0] = floormod(y[0] - 5, 3) (a signed floor modulo).
PrimFunc kernel() {
  Buffer x = Buffer::make("x", DataType::f32(), std::vector<int64_t>{100});
  Buffer y = Buffer::make("y", DataType::f32(), std::vector<int64_t>{100});
  Var b("b"), t("t");
  Expr i = b * i64(32) + t;
  Stmt store = BufferStore::make(y, x(i) * FloatImm::make(DataType::f32(), 2.0), {i});
  Stmt body = IfThenElse::make(LT::make(i, i64(100)), store);
  Stmt nest = For::make(b, i64(0), i64(4), ForKind::kThreadBinding,
                        For::make(t, i64(0), i64(32), ForKind::kThreadBinding, body, "threadIdx.x"),
                        "blockIdx.x");
  Var k("k");
  Stmt serial = BufferStore::make(
      y, Cast::make(DataType::f32(), FloorMod::make(k - i64(5), i64(3))), {i64(0)});
  Stmt one = For::make(k, i64(0), i64(1), ForKind::kSerial, serial);
  PrimFunc f;
  f.name = "k";
  f.params = {x, y};
  f.body = SeqStmt::make({nest, one, Evaluate::make(IntImm::make(DataType::i32(), 0))});
  return f;
}

TEST(DeviceLowering, SplitsBoundNestsAndOneThreadStatements) {
  auto fns = split_device_functions(kernel(), 3);
  ASSERT_EQ(fns.size(), 2u);  // the no-op Evaluate gets no launch
  EXPECT_EQ(fns[0].grid[0], 4u);
  EXPECT_EQ(fns[0].block[0], 32u);
  EXPECT_EQ(fns[0].param_indices, (std::vector<int>{0, 1}));
  EXPECT_EQ(fns[0].kernel, 3);
  EXPECT_EQ(fns[1].grid[0], 1u);
  EXPECT_EQ(fns[1].block[0], 1u);
  EXPECT_EQ(fns[1].param_indices, (std::vector<int>{1}));  // y only
  EXPECT_FALSE(fns[1].block_vars[0].defined());
}

TEST(DevicePrinter, OpenClAndCudaOfTheSameFunctions) {
  auto fns = split_device_functions(kernel(), 0);
  std::string cl = print_opencl(fns);
  EXPECT_NE(cl.find("__kernel void k_0(__global uchar* p0_base, ulong p0_off, __global uchar* "
                    "p1_base, ulong p1_off)"),
            std::string::npos)
      << cl;
  EXPECT_NE(cl.find("(int)get_group_id(0)"), std::string::npos) << cl;
  EXPECT_NE(cl.find("if ((((b * 32) + tx) < 100))"), std::string::npos) << cl;
  // k - 5 may be negative: the floor-modulo helper, not C's %.
  EXPECT_NE(cl.find("ingot_floormod((long)(k - 5), (long)3)"), std::string::npos) << cl;
  std::string cu = print_cuda(fns);
  EXPECT_NE(cu.find("extern \"C\" __global__ void __launch_bounds__(32) k_0(float* x, float* y)"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("(int)blockIdx.x"), std::string::npos) << cu;
  // A function given room against spills: at least 512 resident threads (16 blocks of 32).
  std::string roomy = print_cuda(fns, 80, {"k_0"});
  EXPECT_NE(roomy.find("__launch_bounds__(32, 16) k_0("), std::string::npos) << roomy;
  EXPECT_NE(roomy.find("__launch_bounds__(1) k_1("), std::string::npos) << roomy;
  EXPECT_EQ(cu.find("get_group_id"), std::string::npos) << cu;
}

TEST(DevicePrinter, PrintsANoOpStatement) {
  DeviceFunction f;
  f.name = "noop";
  f.body = Evaluate::make(IntImm::make(DataType::i32(), 0));
  std::string cl = print_opencl({f});
  EXPECT_NE(cl.find("(void)((int)0);"), std::string::npos) << cl;
}

// Per block of 16: two rounds of { all threads copy A's tile (+ r) into shared S, then each
// thread adds S[15 - t], another thread's element, to Y }, then 8 threads double Y. With
// `divergent`, the rounds run only for threads t < 8.
PrimFunc shared_kernel(bool divergent) {
  Buffer a = Buffer::make("A", DataType::f32(), std::vector<int64_t>{64});
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{64});
  Buffer sh = Buffer::make("S", DataType::f32(), std::vector<int64_t>{16}, StorageScope::kShared);
  Var b("b"), t("t"), r("r"), t2("t2"), t3("t3");
  auto bound = [](Var v, int64_t e, Stmt body, const char* tag) {
    return For::make(v, i64(0), i64(e), ForKind::kThreadBinding, body, tag);
  };
  Expr f32r = Cast::make(DataType::f32(), r);
  Stmt fetch =
      bound(t2, 16, BufferStore::make(sh, a(b * i64(16) + t2) + f32r, {t2}), "threadIdx.x");
  Expr yi = b * i64(16) + t;
  Stmt use = BufferStore::make(y, y(yi) + sh(i64(15) - t), {yi});
  Stmt rounds = For::make(r, i64(0), i64(2), ForKind::kSerial, SeqStmt::make({fetch, use}));
  if (divergent) rounds = IfThenElse::make(LT::make(t, i64(8)), rounds);
  Expr yj = b * i64(16) + t3;
  Stmt twice =
      bound(t3, 8, BufferStore::make(y, y(yj) * FloatImm::make(DataType::f32(), 2.0), {yj}),
            "threadIdx.x");
  Stmt per_block = Allocate::make(sh, SeqStmt::make({bound(t, 16, rounds, "threadIdx.x"), twice}));
  PrimFunc f;
  f.name = "s";
  f.params = {a, y};
  f.body = bound(b, 4, per_block, "blockIdx.x");
  return f;
}

TEST(DeviceLowering, SharedMemoryGetsBarriersAndThreadLoopsBecomeThreadIndices) {
  auto fns = split_device_functions(shared_kernel(false), 0);
  ASSERT_EQ(fns.size(), 1u);
  const DeviceFunction& f = fns[0];
  EXPECT_EQ(f.grid[0], 4u);
  EXPECT_EQ(f.block[0], 16u);
  ASSERT_EQ(f.shared.size(), 1u);
  EXPECT_EQ(f.shared[0]->name, "S");
  // Before each round's copy (the previous round's readers) and before the reads.
  EXPECT_EQ(f.sync_before.size(), 2u);
  std::string cl = print_opencl(fns);
  EXPECT_NE(cl.find("__local float S[16];"), std::string::npos) << cl;
  size_t first = cl.find("barrier(CLK_LOCAL_MEM_FENCE);");
  ASSERT_NE(first, std::string::npos) << cl;
  EXPECT_NE(cl.find("barrier(CLK_LOCAL_MEM_FENCE);", first + 1), std::string::npos) << cl;
  EXPECT_LT(cl.find("for (int r"), first) << cl;  // inside the rounds
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  // OpenCL also has one after the rounds (PoCL's work-item loops need it; see visit_For).
  EXPECT_EQ(count(cl, "barrier(CLK_LOCAL_MEM_FENCE);"), 3) << cl;
  EXPECT_NE(cl.find("if ((tx < 8))"), std::string::npos) << cl;  // the 8-thread loop, masked
  EXPECT_EQ(cl.find("t2"), std::string::npos) << cl;  // the copy's threads are the same threads
  std::string cu = print_cuda(fns);
  EXPECT_NE(cu.find("__shared__ __align__(16) float S[16];"), std::string::npos) << cu;
  EXPECT_EQ(count(cu, "__syncthreads();"), 2) << cu;
  EXPECT_NE(cu.find("__launch_bounds__(16)"), std::string::npos) << cu;
}

TEST(DeviceLowering, RefusesTilesLargerThanTheSharedMemoryOfABlock) {
  EXPECT_EQ(split_device_functions(shared_kernel(false), 0, 64).size(), 1u);  // 16 floats
  try {
    split_device_functions(shared_kernel(false), 0, 60);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "kernel s: its tiles need 64 bytes of shared memory per thread block; the "
                 "target allows 60");
  }
}

TEST(DeviceLowering, RefusesABarrierThatOnlySomeThreadsReach) {
  try {
    split_device_functions(shared_kernel(true), 0);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "kernel s: shared memory needs a barrier inside a branch or loop that depends on "
                 "the thread index; not supported on GPU targets");
  }
}

// Per block of 2 x `width` threads: each row ty sums X[b, ty, 0:terms] into a per-thread
// accumulator with a threadIdx.x loop of `terms` (a reduction across threads: its store does not
// depend on the loop), then every thread writes its row's sum to Y[b, ty, tx].
PrimFunc thread_sum_kernel(tir::StorageScope acc_scope, int64_t width = 12, int64_t terms = 10) {
  Buffer x = Buffer::make("X", DataType::f32(), std::vector<int64_t>{3 * 2 * terms});
  Buffer y = Buffer::make("Y", DataType::f32(), std::vector<int64_t>{3 * 2 * width});
  Buffer acc = Buffer::make("acc", DataType::f32(), std::vector<int64_t>{1}, acc_scope);
  Var b("b"), ty("ty"), r("r"), tx("tx");
  auto bound = [](Var v, int64_t e, Stmt body, const char* tag) {
    return For::make(v, i64(0), i64(e), ForKind::kThreadBinding, body, tag);
  };
  Stmt init = BufferStore::make(acc, FloatImm::make(DataType::f32(), 0.0), {i64(0)});
  Stmt sum =
      bound(r, terms,
            BufferStore::make(acc, acc(i64(0)) + x((b * i64(2) + ty) * i64(terms) + r), {i64(0)}),
            "threadIdx.x");
  Expr yi = (b * i64(2) + ty) * i64(width) + tx;
  Stmt write = bound(tx, width, BufferStore::make(y, acc(i64(0)), {yi}), "threadIdx.x");
  Stmt row = bound(ty, 2, SeqStmt::make({init, sum, write}), "threadIdx.y");
  PrimFunc f;
  f.name = "t";
  f.params = {x, y};
  f.body = bound(b, 3, Allocate::make(acc, row), "blockIdx.x");
  return f;
}

TEST(DeviceLowering, AReductionAcrossThreadsBecomesATreePerRowOfTheBlock) {
  auto fns = split_device_functions(thread_sum_kernel(StorageScope::kLocal), 0);
  ASSERT_EQ(fns.size(), 1u);
  const DeviceFunction& f = fns[0];
  EXPECT_EQ(f.block, (std::array<uint32_t, 3>{12, 2, 1}));
  ASSERT_EQ(f.shared.size(), 1u);
  EXPECT_EQ(constant_elements(*f.shared[0].get()), 24);  // one tree per row of 12
  // 12 threads: the 4 beyond 8 folded in first, then 4, 2, 1; a barrier before each fold and
  // before the result is read.
  EXPECT_EQ(f.sync_before.size(), 5u);
  std::string cl = print_opencl(fns);
  // Threads 10 and 11 have no term: the identity.
  EXPECT_NE(cl.find("acc_red0[(tx + (ty * 12))] = ((tx < 10) ? X["), std::string::npos) << cl;
  EXPECT_NE(cl.find(": (0.0f));"), std::string::npos) << cl;
  for (const char* fold :
       {"if ((tx < 4))", "(tx + 8) + (ty * 12)", "if ((tx < 2))", "if ((tx < 1))"})
    EXPECT_NE(cl.find(fold), std::string::npos) << fold << "\n" << cl;
  // Every thread adds its row's result.
  EXPECT_NE(cl.find("acc[0] = (acc[0] + acc_red0[(ty * 12)]);"), std::string::npos) << cl;
}

// Whole warps along x (CUDA): the shared folds stop at 64 values, the first warp of each row
// folds them with five shuffles into a second array, then every thread reads it: with 128
// threads, barriers before the fold into 64, before the warp stage and before the read.
TEST(DeviceLowering, AReductionAcrossWholeWarpsEndsInShufflesOnCuda) {
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  auto cuda = split_device_functions(thread_sum_kernel(StorageScope::kLocal, 128, 100), 0,
                                     48 * 1024, /*warp_shuffles=*/true);
  ASSERT_EQ(cuda.size(), 1u);
  EXPECT_EQ(cuda[0].block, (std::array<uint32_t, 3>{128, 2, 1}));
  EXPECT_EQ(cuda[0].shared.size(), 2u);  // the tree and the warps' results
  EXPECT_EQ(cuda[0].sync_before.size(), 3u);
  std::string cu = print_cuda(cuda);
  EXPECT_EQ(count(cu, "__shfl_down_sync(0xffffffffu, "), 5) << cu;
  for (const char* step : {"(int)16)", "(int)8)", "(int)4)", "(int)2)", "(int)1)"})
    EXPECT_NE(cu.find(step), std::string::npos) << step << "\n" << cu;
  // Two values per lane: the warp's own and the one 32 above.
  EXPECT_NE(cu.find("acc_red0[(tx + (ty * 128))] + acc_red0[((tx + 32) + (ty * 128))]"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("acc_red0_out[(ty * 128)] = acc_red0_lane[0];"), std::string::npos) << cu;
  // OpenCL (no shuffles) folds in shared memory to the end: 7 folds and the read.
  auto cl = split_device_functions(thread_sum_kernel(StorageScope::kLocal, 128, 100), 0);
  EXPECT_EQ(cl[0].sync_before.size(), 8u);
  EXPECT_EQ(print_opencl(cl).find("shfl"), std::string::npos);
  // Not whole warps (12 threads): no shuffles on CUDA either.
  auto narrow = split_device_functions(thread_sum_kernel(StorageScope::kLocal), 0, 48 * 1024,
                                       /*warp_shuffles=*/true);
  EXPECT_EQ(print_cuda(narrow).find("shfl"), std::string::npos);
}

TEST(DeviceLowering, RefusesAReductionAcrossThreadsIntoASharedBuffer) {
  try {
    split_device_functions(thread_sum_kernel(StorageScope::kShared), 0);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "kernel t: a reduction across threads into shared buffer acc is not supported "
                 "on GPU targets (its accumulator must be per-thread)");
  }
}

}  // namespace
}  // namespace ingot::codegen::test
