// The GPU lowering's split into device functions and the OpenCL C / CUDA C++ printer, on
// hand-built loop IR: one launch per top-level bound nest, one thread for the rest, conditions
// carried into each launch, no launch for a kernel that stores nothing, floor division printed
// as C division only where both sides are known non-negative.
#include <gtest/gtest.h>

#include "codegen/gpu/device_lowering.h"
#include "codegen/gpu/device_printer.h"
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
  EXPECT_FALSE(fns[1].block_var.defined());
}

TEST(DevicePrinter, OpenClAndCudaOfTheSameFunctions) {
  auto fns = split_device_functions(kernel(), 0);
  std::string cl = print_opencl(fns);
  EXPECT_NE(cl.find("__kernel void k_0(__global uchar* p0_base, ulong p0_off, __global uchar* "
                    "p1_base, ulong p1_off)"),
            std::string::npos)
      << cl;
  EXPECT_NE(cl.find("(long)get_group_id(0)"), std::string::npos) << cl;
  EXPECT_NE(cl.find("if ((((b * 32L) + t) < 100L))"), std::string::npos) << cl;
  // k - 5 may be negative: the floor-modulo helper, not C's %.
  EXPECT_NE(cl.find("ingot_floormod((long)(k - 5L), (long)3L)"), std::string::npos) << cl;
  std::string cu = print_cuda(fns);
  EXPECT_NE(cu.find("extern \"C\" __global__ void __launch_bounds__(32) k_0(float* x, float* y)"),
            std::string::npos)
      << cu;
  EXPECT_NE(cu.find("(long)blockIdx.x"), std::string::npos) << cu;
  EXPECT_EQ(cu.find("get_group_id"), std::string::npos) << cu;
}

TEST(DevicePrinter, PrintsANoOpStatement) {
  DeviceFunction f;
  f.name = "noop";
  f.body = Evaluate::make(IntImm::make(DataType::i32(), 0));
  std::string cl = print_opencl({f});
  EXPECT_NE(cl.find("(void)((int)0);"), std::string::npos) << cl;
}

}  // namespace
}  // namespace ingot::codegen::test
