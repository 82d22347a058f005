// The width of the device printers' index arithmetic (codegen/gpu/index_width.h): 32 bits where
// every int64 value of the function provably fits, 64 where one may not (a large extent, an
// intermediate product, a loaded int64 value); int64 tensors keep 64-bit elements either way.
#include <gtest/gtest.h>

#include "codegen/gpu/device_lowering.h"
#include "codegen/gpu/device_printer.h"
#include "codegen/gpu/index_width.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

Expr i64(int64_t v) {
  return IntImm::make(DataType::i64(), v);
}

// y[i] = value(i) for i = b * 32 + t < n, over blocks of 32 threads; y has `dtype`.
PrimFunc indexed(int64_t n, DataType dtype, const std::function<Expr(const Expr&)>& value) {
  Buffer y = Buffer::make("y", dtype, std::vector<int64_t>{n});
  Var b("b"), t("t");
  Expr i = b * i64(32) + t;
  Stmt body = IfThenElse::make(LT::make(i, i64(n)), BufferStore::make(y, value(i), {i}));
  PrimFunc f;
  f.name = "k";
  f.params = {y};
  f.body = For::make(b, i64(0), i64((n + 31) / 32), ForKind::kThreadBinding,
                     For::make(t, i64(0), i64(32), ForKind::kThreadBinding, body, "threadIdx.x"),
                     "blockIdx.x");
  return f;
}

TEST(IndexWidth, SmallIndicesAre32Bits) {
  // An int64 output (ArgMax's kind): its elements stay 64-bit, the arithmetic is 32-bit.
  auto fns = split_device_functions(indexed(1000, DataType::i64(), [](Expr i) { return i; }), 0);
  ASSERT_EQ(fns.size(), 1u);
  EXPECT_TRUE(indices_fit_int32(fns[0]));
  std::string cu = print_cuda(fns);
  EXPECT_NE(cu.find("long* y"), std::string::npos) << cu;
  EXPECT_NE(cu.find("const int tx = (int)threadIdx.x;"), std::string::npos) << cu;
  EXPECT_NE(cu.find("if ((((b * 32) + tx) < 1000))"), std::string::npos) << cu;
  std::string cl = print_opencl(fns);
  EXPECT_NE(cl.find("__global long* y"), std::string::npos) << cl;
  EXPECT_NE(cl.find("const int b = (int)get_group_id(0);"), std::string::npos) << cl;
}

TEST(IndexWidth, ValuesThatMayNotFitKeep64Bits) {
  const DataType f32 = DataType::f32();
  // Three billion elements: the index itself.
  auto big = split_device_functions(
      indexed(3000000000LL, f32, [&](Expr i) { return Cast::make(f32, i); }), 0);
  EXPECT_FALSE(indices_fit_int32(big[0]));
  EXPECT_NE(print_cuda(big).find("const long tx = (long)threadIdx.x;"), std::string::npos);
  // A small result through a large intermediate: (i * 3e9) / 3e9.
  auto product = split_device_functions(
      indexed(100, f32,
              [&](Expr i) {
                return Cast::make(f32, FloorDiv::make(i * i64(3000000000LL), i64(3000000000LL)));
              }),
      0);
  EXPECT_FALSE(indices_fit_int32(product[0]));
  // A value loaded from an int64 tensor has no bound.
  Buffer idx = Buffer::make("idx", DataType::i64(), std::vector<int64_t>{100});
  PrimFunc gather = indexed(100, f32, [&](Expr i) { return Cast::make(f32, idx(i) + i64(1)); });
  gather.params.insert(gather.params.begin(), idx);
  auto loaded = split_device_functions(gather, 0);
  EXPECT_FALSE(indices_fit_int32(loaded[0]));
  EXPECT_NE(print_opencl(loaded).find("((float)(idx[((b * 32L) + tx)] + 1L))"), std::string::npos)
      << print_opencl(loaded);
}

}  // namespace
}  // namespace ingot::codegen::test
