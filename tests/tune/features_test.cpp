// Cost-model features on small loop nests whose values follow in closed form.
#include "tune/features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tir/op.h"

namespace ingot::tune {
namespace {

using namespace ingot::tir;

float lg(double x) {
  return float(std::log2(1 + x));
}

// C[i, j] += A[i, k] * B[k, j] over 64^3, i parallel.
PrimFunc naive_matmul() {
  Buffer a = Buffer::make("A", DataType::f32(), std::vector<int64_t>{64, 64});
  Buffer b = Buffer::make("B", DataType::f32(), std::vector<int64_t>{64, 64});
  Buffer c = Buffer::make("C", DataType::f32(), std::vector<int64_t>{64, 64});
  Var i("i"), j("j"), k("k");
  Stmt body =
      For::make(i, i64(0), i64(64), ForKind::kParallel,
                For::make(j, i64(0), i64(64), ForKind::kSerial,
                          For::make(k, i64(0), i64(64), ForKind::kSerial,
                                    BufferStore::make(c, c(i, j) + a(i, k) * b(k, j), {i, j}))));
  return PrimFunc{"mm", {a, b, c}, body};
}

TEST(Features, NaiveMatmulInClosedForm) {
  KernelFeatures f = extract_features(naive_matmul(), 2);
  ASSERT_EQ(f.row_count(), 1u);
  const double n3 = 64.0 * 64 * 64;
  EXPECT_FLOAT_EQ(f.at(0, "stores"), 1.f);
  EXPECT_FLOAT_EQ(f.at(0, "lanes"), 1.f);
  EXPECT_FLOAT_EQ(f.at(0, "loops"), 3.f);
  EXPECT_FLOAT_EQ(f.at(0, "loop_iterations"), lg(n3));
  EXPECT_FLOAT_EQ(f.at(0, "parallel_loops"), 1.f);
  EXPECT_FLOAT_EQ(f.at(0, "parallel_extent"), lg(64));
  EXPECT_FLOAT_EQ(f.at(0, "parallel_depth"), 0.f);
  EXPECT_FLOAT_EQ(f.at(0, "thread_balance"), 1.f);  // 64 iterations over 2 threads
  EXPECT_FLOAT_EQ(f.at(0, "float_fma"), lg(n3));
  EXPECT_FLOAT_EQ(f.at(0, "float_add"), 0.f);
  EXPECT_FLOAT_EQ(f.at(0, "accumulates"), 1.f);
  EXPECT_FLOAT_EQ(f.at(0, "kernel_flops"), lg(2 * n3));
  // Buffers by bytes accessed: C (read and written), then A and B.
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_written"), 1.f);
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_bytes_accessed"), lg(2 * 4 * n3));
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_bytes_unique"), lg(64 * 64 * 4));
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_inner_stride"), 0.f);    // k does not index C
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_reuse_count"), lg(64));  // reused across k
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_reuse_bytes"), lg(12));  // one float each of A, B, C
  // A is read along k with stride 1, B with stride 64 (one of the two is slot 1, one slot 2).
  float s1 = f.at(0, "buffer1_inner_stride"), s2 = f.at(0, "buffer2_inner_stride");
  EXPECT_FLOAT_EQ(std::min(s1, s2), lg(1));
  EXPECT_FLOAT_EQ(std::max(s1, s2), lg(64));
  EXPECT_FLOAT_EQ(f.at(0, "buffer3_present"), 0.f);
  // Footprints: one j iteration (the k loop) 4 + 256 + 256 bytes, one i iteration
  // 256 + 256 + 16384, the whole nest 3 x 16 KiB = 48 KiB. L1 (32 KiB): the i loop does not fit,
  // so each of its 64 iterations brings in 16896 bytes; L2 holds everything: 48 KiB.
  EXPECT_FLOAT_EQ(f.at(0, "l1_traffic"), lg(64.0 * 16896));
  EXPECT_FLOAT_EQ(f.at(0, "l2_traffic"), lg(49152));
}

TEST(Features, VectorStoresAndThreadBalance) {
  Buffer a = Buffer::make("A", DataType::f32(), std::vector<int64_t>{6, 32});
  Buffer c = Buffer::make("C", DataType::f32(), std::vector<int64_t>{6, 32});
  Buffer d = Buffer::make("D", DataType::f32(), std::vector<int64_t>{6, 32});
  Var i("i");
  auto lanes = [](int64_t base) { return Ramp::make(i64(base), i64(1), 16); };
  // Two vector stores to C in the same loop (one row), one to D (another row).
  Stmt body = For::make(
      i, i64(0), i64(6), ForKind::kParallel,
      SeqStmt::make(
          {BufferStore::make(c, a(i, lanes(0)) * Broadcast::make(f32(2), 16), {i, lanes(0)}),
           BufferStore::make(c, a(i, lanes(16)) * Broadcast::make(f32(2), 16), {i, lanes(16)}),
           BufferStore::make(d, exp(a(i, lanes(0))), {i, lanes(0)})}));
  KernelFeatures f = extract_features(PrimFunc{"v", {a, c, d}, body}, 4);
  ASSERT_EQ(f.row_count(), 2u);
  EXPECT_FLOAT_EQ(f.at(0, "stores"), lg(2));
  EXPECT_FLOAT_EQ(f.at(0, "lanes"), 16.f);
  EXPECT_FLOAT_EQ(f.at(0, "float_mul"), lg(6 * 32));
  EXPECT_FLOAT_EQ(f.at(0, "vector_moves"), lg(6 * 2));  // the two broadcasts of 2.0
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_contiguous_vector"), 1.f);
  EXPECT_FLOAT_EQ(f.at(0, "buffer0_bytes_unique"), lg(6 * 32 * 4));
  EXPECT_FLOAT_EQ(f.at(0, "thread_balance"), 6.f / 8.f);  // 6 iterations on 4 threads: 2 rounds
  EXPECT_FLOAT_EQ(f.at(1, "float_math"), lg(6 * 16));
  EXPECT_FLOAT_EQ(f.at(1, "buffer0_bytes_unique"), lg(6 * 16 * 4));  // half of A (or D)
}

TEST(Features, NamesAreUniqueAndMatchTheRowWidth) {
  const std::vector<std::string>& names = feature_names();
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  KernelFeatures f = extract_features(naive_matmul(), 1);
  EXPECT_EQ(f.rows.size(), names.size());
}

}  // namespace
}  // namespace ingot::tune
