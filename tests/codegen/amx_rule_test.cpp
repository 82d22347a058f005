// The panel-product rules on a target with AMX (rules/int8_matmul.h, rules/bf16_matmul.h with
// RuleTarget::amx_int8 / amx_bf16): the product block C[i, j] = bias[j] + sum_k A[i, k] * B[k, j]
// (uint8 x int8 into int32; bfloat16 into float32) scheduled with the AMX tiles, its B laid out
// as the rule says, compiled for this CPU with the tiles emulated (codegen/llvm/amx_tiles.cpp)
// and run on several threads against the exact products computed here: rows that leave a tail
// of one-row tiles, 16- and 32-column panels, a depth of several tile steps. Where the depth
// or the columns are not whole tiles, or the rows fewer than a tile's, the rule keeps the
// vector tiles. The trace replays.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "artifact_util.h"
#include "schedule/rules/bf16_matmul.h"
#include "schedule/rules/int8_matmul.h"
#include "schedule/trace.h"
#include "support/bfloat16.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/region_analysis.h"
#include "tir/structural_equal.h"
#include "tir/transforms/compact_buffers.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

// Block "matmul": C[i, j] = bias[j]; C[i, j] += c_t(A[i, k]) * c_t(B[k, j]); B and bias constant.
PrimFunc product(DataType a_t, DataType b_t, DataType c_t, int64_t M, int64_t N, int64_t K) {
  Buffer A = Buffer::make("A", a_t, std::vector<int64_t>{M, K});
  Buffer B = Buffer::make("B", b_t, std::vector<int64_t>{K, N});
  Buffer bias = Buffer::make("bias", c_t, std::vector<int64_t>{N});
  Buffer C = Buffer::make("C", c_t, std::vector<int64_t>{M, N});
  Var vi("vi"), vj("vj"), vk("vk"), i("i"), j("j"), k("k");
  Stmt body = BufferStore::make(
      C, C.load({vi, vj}) + cast(c_t, A.load({vi, vk})) * cast(c_t, B.load({vk, vj})), {vi, vj});
  Stmt init = BufferStore::make(C, bias.load({vj}), {vi, vj});
  Stmt block = make_block("matmul",
                          {{vi, i64(0), i64(M), IterKind::kSpatial},
                           {vj, i64(0), i64(N), IterKind::kSpatial},
                           {vk, i64(0), i64(K), IterKind::kReduce}},
                          body, init);
  Stmt st = BlockRealize::make({i, j, k}, IntImm::make(DataType::boolean(), 1), block);
  st = For::make(k, i64(0), i64(K), ForKind::kSerial, st);
  st = For::make(j, i64(0), i64(N), ForKind::kSerial, st);
  st = For::make(i, i64(0), i64(M), ForKind::kSerial, st);
  PrimFunc f{"amx_product", {A, B, bias, C}, st};
  f.constant_params = {1, 2};
  return f;
}

schedule::RuleTarget amx_target() {
  schedule::RuleTarget t{"llvm", CpuVectorIsa::x86(512)};
  t.int8_quads = true;
  t.amx_int8 = t.amx_bf16 = true;
  return t;
}

// Schedules f with `rule`, checks the trace replays, and returns the lowered kernel and the
// constants laid out as the schedule says (B of `b_bytes` per element, bias of 4).
template <typename Rule>
PrimFunc scheduled(const PrimFunc& f, Rule rule, std::vector<std::vector<uint8_t>>* consts,
                   int b_bytes, std::string* text) {
  schedule::Schedule sch(f);
  rule(sch, amx_target());
  schedule::Schedule replayed = schedule::Trace::from_json(sch.trace().to_json()).replay(f);
  EXPECT_TRUE(structural_equal(replayed.func(), sch.func()));
  *text = to_string(sch.func());
  for (const PrimFunc::ParamLayout& l : sch.func().layouts)
    (*consts)[size_t(l.param)] =
        l.layout.relayout((*consts)[size_t(l.param)].data(), l.shape, l.param == 1 ? b_bytes : 4);
  return compact_buffers(lower_blocks(sch.func()), /*local_only=*/true);
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(v.data()),
                              reinterpret_cast<const uint8_t*>(v.data() + v.size()));
}

const Target& emulating_host() {
  static const Target t = Target::parse("llvm -mattr=-amx-tile,-amx-int8,-amx-bf16");
  return t;
}

void expect_int8(int64_t M, int64_t N, int64_t K, const std::string& tile) {
  std::mt19937 rng(uint32_t(M * 31 + N + K));
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> a(size_t(M * K));
  std::vector<int8_t> b(size_t(K * N));
  std::vector<int32_t> bias(static_cast<size_t>(N));
  for (auto& v : a) v = uint8_t(byte(rng));
  for (auto& v : b) v = int8_t(byte(rng) - 128);
  for (int64_t j = 0; j < N; ++j) bias[size_t(j)] = int32_t(j * 977 % 5000) - 2500;
  std::vector<std::vector<uint8_t>> consts = {{}, bytes_of(b), bytes_of(bias)};
  std::string text;
  PrimFunc done = scheduled(product(DataType::u8(), DataType::i8(), DataType::i32(), M, N, K),
                            schedule::schedule_int8_matmul, &consts, 1, &text);
  ASSERT_NE(text.find(tile), std::string::npos) << text;
  std::vector<int32_t> c(size_t(M * N), -7);
  LoadedArtifact art(single_kernel_module("amx_int8", done.params, done.body, 3), emulating_host());
  ASSERT_EQ(art.run({a.data(), consts[1].data(), consts[2].data()}, {c.data()}, nullptr, true), 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      int64_t want = bias[size_t(j)];
      for (int64_t k = 0; k < K; ++k) want += int64_t(a[size_t(i * K + k)]) * b[size_t(k * N + j)];
      ASSERT_EQ(c[size_t(i * N + j)], int32_t(want)) << tile << " at " << i << "," << j;
    }
}

void expect_bf16(int64_t M, int64_t N, int64_t K, const std::string& tile) {
  std::mt19937 rng(uint32_t(M * 17 + N + K));
  std::uniform_int_distribution<int> small(-64, 64);
  // Values k / 16: their products and sums are exact in float32, in any order.
  std::vector<uint16_t> a(size_t(M * K)), b(size_t(K * N));
  std::vector<float> bias(static_cast<size_t>(N));
  for (auto& v : a) v = float_to_bfloat16_bits(float(small(rng)) / 16.0f);
  for (auto& v : b) v = float_to_bfloat16_bits(float(small(rng)) / 16.0f);
  for (int64_t j = 0; j < N; ++j) bias[size_t(j)] = float(j % 9) - 4.0f;
  std::vector<std::vector<uint8_t>> consts = {{}, bytes_of(b), bytes_of(bias)};
  std::string text;
  PrimFunc done = scheduled(product(DataType::bf16(), DataType::bf16(), DataType::f32(), M, N, K),
                            schedule::schedule_bf16_matmul, &consts, 2, &text);
  ASSERT_NE(text.find(tile), std::string::npos) << text;
  std::vector<float> c(size_t(M * N), -7.0f);
  LoadedArtifact art(single_kernel_module("amx_bf16", done.params, done.body, 3), emulating_host());
  ASSERT_EQ(art.run({a.data(), consts[1].data(), consts[2].data()}, {c.data()}, nullptr, true), 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double want = bias[size_t(j)];
      for (int64_t k = 0; k < K; ++k)
        want += double(bfloat16_bits_to_float(a[size_t(i * K + k)])) *
                double(bfloat16_bits_to_float(b[size_t(k * N + j)]));
      ASSERT_EQ(c[size_t(i * N + j)], float(want)) << tile << " at " << i << "," << j;
    }
}

TEST(AmxRules, Int8ProductsTakeTheTilesAndMatchExactly) {
  expect_int8(40, 64, 192, "x86_amx_dot_u8i8_g4_32x32_k48");  // 32 rows and 8 one-row tiles
  expect_int8(48, 48, 64, "x86_amx_dot_u8i8_g4_32x16_k16");   // 48 columns: 16-column panels
}

TEST(AmxRules, BFloat16ProductsTakeTheTilesAndMatchExactly) {
  expect_bf16(40, 64, 96, "x86_amx_dot_bf16_32x32_k48");
  expect_bf16(23, 32, 64, "x86_amx_dot_bf16_16x32_k32");  // 16 rows and 7 one-row tiles
}

TEST(AmxRules, PartialTilesAndFewRowsKeepTheVectorTiles) {
  // K = 96 is not whole 64-byte rows of uint8; N = 40 not whole 16-column tiles.
  schedule::Schedule deep(product(DataType::u8(), DataType::i8(), DataType::i32(), 32, 64, 96));
  schedule::schedule_int8_matmul(deep, amx_target());
  EXPECT_EQ(to_string(deep.func()).find("x86_amx"), std::string::npos);
  schedule::Schedule narrow(product(DataType::u8(), DataType::i8(), DataType::i32(), 32, 40, 128));
  schedule::schedule_int8_matmul(narrow, amx_target());
  EXPECT_EQ(to_string(narrow.func()).find("x86_amx"), std::string::npos);
  EXPECT_NE(to_string(narrow.func()).find("x86_avx512_dot_u8i8_g4"), std::string::npos);
  // 8 rows: fewer than one tile's.
  schedule::Schedule few(product(DataType::u8(), DataType::i8(), DataType::i32(), 8, 64, 128));
  schedule::schedule_int8_matmul(few, amx_target());
  EXPECT_EQ(to_string(few.func()).find("x86_amx"), std::string::npos);
}

}  // namespace
}  // namespace ingot::codegen::test
