// bfloat16 kernels through LLVM (codegen/llvm/bfloat16.cpp): float32 -> bfloat16 rounds to
// nearest even with NaNs kept quiet, bfloat16 -> float32 is exact, scalar and vectorized loops,
// and the dtype an artifact records (DLPack's kDLBfloat, code 4). The expected bits are written
// out by hand from the IEEE layouts, not computed by ingot's host conversion.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "artifact_util.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Case {
  uint32_t f32;
  uint16_t bf16;
};

// float32 bit patterns and the bfloat16 they round to.
const std::vector<Case> kCases = {
    {0x3F800000, 0x3F80},  // 1
    {0x3F808000, 0x3F80},  // 1 + 2^-8: a tie, to the even 1
    {0x3F818000, 0x3F82},  // 1 + 3 * 2^-8: a tie, up to the even neighbour
    {0x3F808001, 0x3F81},  // just past the tie: up
    {0x3F807FFF, 0x3F80},  // just below it: down
    {0xBF80C000, 0xBF81},  // -1.0234375 + ...: sign kept, rounds by magnitude
    {0x7F800000, 0x7F80},  // +inf
    {0xFF800000, 0xFF80},  // -inf
    {0x7FC00000, 0x7FC0},  // quiet NaN
    {0x7F800001, 0x7FC0},  // signalling NaN whose payload lies in the dropped half: quiet NaN
    {0xFFC12345, 0xFFC0},  // negative NaN: the sign kept, the payload not (as ml_dtypes)
    {0x7F7FFFFF, 0x7F80},  // the largest float32 overflows to infinity
    {0x7F7F7FFF, 0x7F7F},  // below the half-way point: the largest finite bfloat16
    {0x00008000, 0x0000},  // subnormal tie to even zero
    {0x00018000, 0x0002},  // subnormal tie up to even
    {0x80000000, 0x8000},  // -0
};

TEST(BFloat16Kernels, Float32ToBFloat16RoundsToNearestEvenScalarAndVectorized) {
  const auto n = int64_t(kCases.size());
  std::vector<float> x;
  for (const Case& c : kCases) x.push_back(from_bits(c.f32));
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    Buffer xb = make_buffer("X", DataType::f32(), {n});
    Buffer yb = make_buffer("Y", DataType::bf16(), {n});
    Var i("i");
    Stmt body = For::make(i, i64(0), i64(n), kind,
                          BufferStore::make(yb, cast(DataType::bf16(), xb(i)), {i}));
    LoadedArtifact art(single_kernel_module("to_bf16", {xb, yb}, body, 1));
    EXPECT_EQ(art->outputs[0].dtype.code, 4);
    EXPECT_EQ(art->outputs[0].dtype.bits, 16);
    std::vector<uint16_t> y(size_t(n) + 4, 0xabcd);
    ASSERT_EQ(art.run({x.data()}, {y.data()}), 0);
    for (int64_t k = 0; k < n; ++k)
      EXPECT_EQ(y[size_t(k)], kCases[size_t(k)].bf16)
          << std::hex << "float32 0x" << kCases[size_t(k)].f32 << " (loop kind " << int(kind)
          << ")";
    EXPECT_EQ(y[size_t(n)], 0xabcd);  // nothing written past the end
  }
}

TEST(BFloat16Kernels, BFloat16ToFloat32IsExactAndArithmeticRoundsOnStore) {
  // Y = float32(A); Z = bfloat16(A * B): the product of two bfloat16 values is exact in float32,
  // so Z is that product rounded once.
  std::vector<uint16_t> a = {0x3F80, 0x3F81, 0xC2F7, 0x7F80, 0x7FC0, 0x0001, 0x7F7F, 0x3EAB};
  std::vector<uint16_t> b = {0x3F81, 0x3F81, 0x3F40, 0x3F80, 0x3F80, 0x4000, 0x4000, 0x3F80};
  // 1 * 1.0078125; 1.0078125^2 = 1.0156860 (0x3F820080) -> 0x3F82; -123.5 * 0.75 = -92.625
  // (0xC2B94000, below the half-way point) -> 0xC2B9; inf; NaN; the smallest subnormal doubled;
  // the largest finite doubled overflows; 0.333984375 * 1.
  const std::vector<uint16_t> want = {0x3F81, 0x3F82, 0xC2B9, 0x7F80,
                                      0x7FC0, 0x0002, 0x7F80, 0x3EAB};
  const auto n = int64_t(a.size());
  for (ForKind kind : {ForKind::kSerial, ForKind::kVectorized}) {
    Buffer ab = make_buffer("A", DataType::bf16(), {n});
    Buffer bb = make_buffer("B", DataType::bf16(), {n});
    Buffer yb = make_buffer("Y", DataType::f32(), {n});
    Buffer zb = make_buffer("Z", DataType::bf16(), {n});
    Var i("i");
    Stmt body = For::make(i, i64(0), i64(n), kind,
                          SeqStmt::make({BufferStore::make(yb, cast(DataType::f32(), ab(i)), {i}),
                                         BufferStore::make(zb, ab(i) * bb(i), {i})}));
    LoadedArtifact art(single_kernel_module("from_bf16", {ab, bb, yb, zb}, body, 2));
    EXPECT_EQ(art->inputs[0].dtype.code, 4);
    std::vector<float> y(a.size());
    std::vector<uint16_t> z(a.size());
    ASSERT_EQ(art.run({a.data(), b.data()}, {y.data(), z.data()}), 0);
    for (int64_t k = 0; k < n; ++k) {
      uint32_t bits;
      std::memcpy(&bits, &y[size_t(k)], 4);
      EXPECT_EQ(bits, uint32_t(a[size_t(k)]) << 16) << "element " << k;
      EXPECT_EQ(z[size_t(k)], want[size_t(k)]) << std::hex << "element " << k;
    }
  }
}

}  // namespace
}  // namespace ingot::codegen::test
