// The c target: C99 kernels built by the host C compiler into an artifact (codegen/c/), against
// closed forms. The semantics shared with LLVM (math, floor division, uint8) are in math_test's
// EveryCpuBackend suite; these are what the C printer does on its own: integer wrap-around below
// int, NaN in min / max, local arrays, index width, the entry's hooks and workspace, the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "artifact_util.h"
#include "codegen/c/c_kernel_printer.h"
#include "codegen/c/c_library.h"
#include "codegen/c/c_model_source.h"
#include "codegen/c/object_size.h"
#include "support/error.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

const Target& c_target() {
  static const Target t = Target::parse("c");
  return t;
}

TEST(CTarget, SmallIntegersWrapAndBoolsAreBytes) {
  // Y8 = int8(A + B) wraps (100 + 100 = -56); B1 = A > B as one byte; S = select(B1, A, -B) in
  // int16; F = float(Y8) / 2.
  std::vector<int8_t> as = {100, -100, 5, 0, 127}, bs = {100, -100, -7, 0, 1};
  int64_t n = int64_t(as.size());
  Buffer a = make_buffer("A", DataType::i8(), {n});
  Buffer b = make_buffer("B", DataType::i8(), {n});
  Buffer y = make_buffer("Y8", DataType::i8(), {n});
  Buffer bl = make_buffer("B1", DataType::boolean(), {n});
  Buffer s = make_buffer("S", DataType{DataType::kInt, 16, 1}, {n});
  Buffer f = make_buffer("F", DataType::f32(), {n});
  Var i("i");
  Stmt body = For::make(
      i, i64(0), i64(n), ForKind::kParallel,
      SeqStmt::make({BufferStore::make(y, a(i) + b(i), {i}),
                     BufferStore::make(bl, a(i) > b(i), {i}),
                     BufferStore::make(s,
                                       select(bl(i), cast(DataType{DataType::kInt, 16, 1}, a(i)),
                                              cast(DataType{DataType::kInt, 16, 1}, b(i)) *
                                                  make_const(DataType{DataType::kInt, 16, 1}, -1)),
                                       {i}),
                     BufferStore::make(f, cast(DataType::f32(), y(i)) / f32(2), {i})}));
  LoadedArtifact art(single_kernel_module("small", {a, b, y, bl, s, f}, body, 2), c_target());
  std::vector<int8_t> ys(n);
  std::vector<uint8_t> bls(n, 7);
  std::vector<int16_t> ss(n);
  std::vector<float> fs(n);
  ASSERT_EQ(art.run({as.data(), bs.data()}, {ys.data(), bls.data(), ss.data(), fs.data()}), 0);
  for (int64_t k = 0; k < n; ++k) {
    int8_t wrapped = int8_t(uint8_t(int(as[k]) + int(bs[k])));
    EXPECT_EQ(ys[k], wrapped) << k;
    EXPECT_EQ(bls[k], as[k] > bs[k] ? 1 : 0) << k;
    EXPECT_EQ(ss[k], as[k] > bs[k] ? int16_t(as[k]) : int16_t(-bs[k])) << k;
    EXPECT_EQ(fs[k], float(wrapped) / 2) << k;
  }
}

TEST(CTarget, MinMaxWithNaNPickAsLlvmDoes) {
  // Compare-and-select: min(a, b) = a < b ? a : b, so a NaN first operand gives b and a NaN
  // second operand gives NaN; the same in both backends.
  std::vector<float> as = {NAN, 1.0f, -2.0f, 3.0f}, bs = {1.0f, NAN, 5.0f, -4.0f};
  int64_t n = int64_t(as.size());
  Buffer a = make_buffer("A", DataType::f32(), {n});
  Buffer b = make_buffer("B", DataType::f32(), {n});
  Buffer lo = make_buffer("LO", DataType::f32(), {n});
  Buffer hi = make_buffer("HI", DataType::f32(), {n});
  Var i("i");
  Stmt body = For::make(i, i64(0), i64(n), ForKind::kSerial,
                        SeqStmt::make({BufferStore::make(lo, min(a(i), b(i)), {i}),
                                       BufferStore::make(hi, max(a(i), b(i)), {i})}));
  for (const Target& t : {Target::host(), c_target()}) {
    SCOPED_TRACE(t.str());
    LoadedArtifact art(single_kernel_module("minmax", {a, b, lo, hi}, body, 2), t);
    std::vector<float> los(n), his(n);
    ASSERT_EQ(art.run({as.data(), bs.data()}, {los.data(), his.data()}), 0);
    EXPECT_EQ(los[0], 1.0f);
    EXPECT_TRUE(std::isnan(los[1]));
    EXPECT_EQ(los[2], -2.0f);
    EXPECT_EQ(his[3], 3.0f);
    EXPECT_EQ(his[0], 1.0f);
    EXPECT_TRUE(std::isnan(his[1]));
  }
}

TEST(CTarget, LocalArraysAndTheirStackBytes) {
  // Y[i] = sum_j X[i, j] through a 4-element local accumulator array (one slot used per row).
  const int64_t rows = 4, cols = 6;
  Buffer x = make_buffer("X", DataType::f32(), {rows, cols});
  Buffer y = make_buffer("Y", DataType::f32(), {rows});
  Buffer acc = make_buffer("acc", DataType::f32(), {rows}, StorageScope::kLocal);
  Var i("i"), j("j");
  Stmt body = Allocate::make(
      acc, For::make(i, i64(0), i64(rows), ForKind::kSerial,
                     SeqStmt::make({BufferStore::make(acc, f32(0), {i}),
                                    For::make(j, i64(0), i64(cols), ForKind::kUnrolled,
                                              BufferStore::make(acc, acc(i) + x(i, j), {i})),
                                    BufferStore::make(y, acc(i), {i})})));
  IRModule m = single_kernel_module("local", {x, y}, body, 1);
  CKernel printed = print_c_kernel(m.kernels[0], "k", {true, true});
  EXPECT_EQ(printed.stack_bytes, rows * 4);
  EXPECT_NE(printed.code.find("float acc[4];"), std::string::npos) << printed.code;
  LoadedArtifact art(m, c_target());
  std::vector<float> xs = random_floats(rows * cols, 7), ys(rows);
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}), 0);
  for (int64_t r = 0; r < rows; ++r) {
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s += xs[size_t(r * cols + c)];
    EXPECT_FLOAT_EQ(ys[size_t(r)], s);
  }
}

TEST(CTarget, IndicesAre32BitWhereEveryValueFits) {
  // A microcontroller has no 64-bit multiply: small kernels index in int32_t; one over 2^31
  // elements keeps int64_t.
  auto kernel = [](int64_t n) {
    Buffer x = make_buffer("X", DataType::f32(), {n});
    Buffer y = make_buffer("Y", DataType::f32(), {n});
    Var i("i");
    Stmt body =
        For::make(i, i64(0), i64(n), ForKind::kSerial, BufferStore::make(y, x(i) * f32(2), {i}));
    return single_kernel_module("w", {x, y}, body, 1).kernels[0];
  };
  std::string small = print_c_kernel(kernel(1000), "k", {true, true}).code;
  std::string huge = print_c_kernel(kernel(int64_t(3) << 30), "k", {true, true}).code;
  EXPECT_NE(small.find("for (int32_t i = 0; i < 1000; ++i)"), std::string::npos) << small;
  EXPECT_EQ(small.find("int64_t"), std::string::npos) << small;
  EXPECT_NE(huge.find("for (int64_t i = 0; i < 3221225472; ++i)"), std::string::npos) << huge;
}

TEST(CTarget, EntryCallsKernelsInOrderWithHooksWorkspaceAndConstants) {
  // k0: T = X + C (C a constant [10, 20, 30, 40] in the blob, T in the workspace at offset 64);
  // k1: Y = T * 2. The runtime's kernel_begin / kernel_end hooks see 0, 1.
  const int64_t n = 4;
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer c = make_buffer("C", DataType::f32(), {n});
  Buffer t = make_buffer("T", DataType::f32(), {n});
  Buffer t2 = make_buffer("T2", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {n});
  Var i("i"), k("k");
  IRModule m;
  m.model_name = "two kernels!";  // not a C identifier: the C name is "two_kernels_"
  m.kernels.push_back(PrimFunc{
      "add",
      {x, c, t},
      For::make(i, i64(0), i64(n), ForKind::kSerial, BufferStore::make(t, x(i) + c(i), {i})),
      0,
      0});
  m.kernels.push_back(PrimFunc{
      "twice",
      {t2, y},
      For::make(k, i64(0), i64(n), ForKind::kSerial, BufferStore::make(y, t2(k) * f32(2), {k})),
      0,
      0});
  m.inputs.push_back(desc_of(x));
  m.outputs.push_back(desc_of(y));
  m.workspace_bytes = 128;
  std::vector<float> cs = {10, 20, 30, 40};
  m.constants.resize(64 + sizeof(float) * n);
  std::memcpy(m.constants.data() + 64, cs.data(), sizeof(float) * n);
  m.entry.push_back({0, {{ArgRef::kInput, 0}, {ArgRef::kConstant, 64}, {ArgRef::kWorkspace, 64}}});
  m.entry.push_back({1, {{ArgRef::kWorkspace, 64}, {ArgRef::kOutput, 0}}});
  EXPECT_EQ(c_model_name(m.model_name), "two_kernels_");
  LoadedArtifact art(m, c_target());
  EXPECT_STREQ(art->target, "c");
  EXPECT_STREQ(art->isa_features, "");
  std::vector<float> xs = {1, 2, 3, 4}, ys(n);
  alignas(64) uint8_t ws[128] = {};
  ServiceStats stats;
  IngotServices s = make_services(&stats, false, true);
  void* in[] = {xs.data()};
  void* out[] = {ys.data()};
  ASSERT_EQ(art->entry(&s, in, out, ws, nullptr), 0);
  for (int64_t j = 0; j < n; ++j) EXPECT_EQ(ys[size_t(j)], 2 * (xs[size_t(j)] + cs[size_t(j)]));
  EXPECT_EQ(stats.begun, (std::vector<int>{0, 1}));
  EXPECT_EQ(stats.ended, (std::vector<int>{0, 1}));
}

TEST(CTarget, Float16ConversionsMatchLlvmsBitForBit) {
  // Y16 = float16(X) over normal, subnormal, tie, overflow, infinite and NaN inputs; Z = float(Y16)
  // * 2 read back through float16 memory. LLVM converts with the host's instructions (F16C), the C
  // target with its portable helpers: the bits must agree.
  std::vector<float> xs = {
      1.0f,      -1.0f,         65504.0f,       65519.0f,       65520.0f, -70000.0f,     0.0f,
      -0.0f,     1e-8f,         2.98e-8f,       2.9802322e-8f,  6.0e-8f,  5.9604645e-8f, 6.1e-5f,
      6.097e-5f, 1.0009765625f, 1.00048828125f, 1.00146484375f, 3.14159f, INFINITY,      -INFINITY,
      NAN};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> e(-26.0f, 17.0f);
  for (int k = 0; k < 2000; ++k) xs.push_back((k % 2 ? -1.0f : 1.0f) * std::exp2(e(rng)));
  const int64_t n = int64_t(xs.size());
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer y = make_buffer("Y16", DataType::f16(), {n});
  Buffer z = make_buffer("Z", DataType::f32(), {n});
  Var i("i");
  Stmt body =
      For::make(i, i64(0), i64(n), ForKind::kSerial,
                SeqStmt::make({BufferStore::make(y, cast(DataType::f16(), x(i)), {i}),
                               BufferStore::make(z, cast(DataType::f32(), y(i)) * f32(2), {i})}));
  std::vector<std::vector<uint16_t>> ys;
  std::vector<std::vector<float>> zs;
  for (const Target& t : {Target::host(), c_target()}) {
    LoadedArtifact art(single_kernel_module("half", {x, y, z}, body, 1), t);
    ys.emplace_back(size_t(n));
    zs.emplace_back(size_t(n));
    ASSERT_EQ(art.run({xs.data()}, {ys.back().data(), zs.back().data()}), 0);
  }
  for (int64_t k = 0; k < n; ++k) {
    const uint16_t a = ys[0][size_t(k)], b = ys[1][size_t(k)];
    if ((a & 0x7c00) == 0x7c00 && (a & 0x3ff) != 0) {  // NaN: any payload
      EXPECT_EQ(b & 0x7c00, 0x7c00) << xs[size_t(k)];
      EXPECT_NE(b & 0x3ff, 0) << xs[size_t(k)];
      continue;
    }
    EXPECT_EQ(b, a) << "float16(" << xs[size_t(k)] << ")";
    EXPECT_EQ(zs[1][size_t(k)], zs[0][size_t(k)]) << xs[size_t(k)];
  }
  EXPECT_EQ(ys[1][0], 0x3c00);
  EXPECT_EQ(ys[1][2], 0x7bff);  // 65504, the largest
  EXPECT_EQ(ys[1][4], 0x7c00);  // 65520 ties to even: infinity
}

TEST(CTarget, LinksInterleaveWithLlvmsInOneProcess) {
  // Regression: the C compiler's PIC object named _GLOBAL_OFFSET_TABLE_ (to reach the constants
  // through the GOT); LLD 19 kept its pointer to that symbol after the link, and the next
  // in-process link wrote through it into freed memory (valgrind; crashes one run in two). The
  // model's symbols are now hidden in host builds: no object names the GOT, and links of both
  // backends alternate.
  const int64_t n = 8;
  Buffer x = make_buffer("X", DataType::f32(), {n});
  Buffer c = make_buffer("C", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {n});
  Var i("i");
  IRModule m = single_kernel_module(
      "got", {x, c, y},
      For::make(i, i64(0), i64(n), ForKind::kSerial, BufferStore::make(y, x(i) * c(i), {i})), 1);
  // C is a constant at offset 0; Y the only output.
  m.entry[0].args = {{ArgRef::kInput, 0}, {ArgRef::kConstant, 0}, {ArgRef::kOutput, 0}};
  m.outputs = {desc_of(y)};
  std::vector<float> cs = random_floats(n, 5);
  m.constants.resize(sizeof(float) * n);
  std::memcpy(m.constants.data(), cs.data(), m.constants.size());

  TempDir dir;
  CModelSource src = print_c_model(m, "got", false);
  std::ofstream(dir.file(src.header_file)) << src.header;
  compile_c_file(src.source_file, src.source, host_c_compiler(), c_build_flags(),
                 dir.path().string(), dir.file("got.o"));
  std::vector<std::string> undefined = elf_undefined_symbols(dir.file("got.o"));
  EXPECT_FALSE(references_got(dir.file("got.o")));
  EXPECT_NE(std::find(undefined.begin(), undefined.end(), "ingot_got_constants"), undefined.end());

  std::vector<float> xs = random_floats(n, 6);
  for (int round = 0; round < 3; ++round)
    for (const Target& t : {c_target(), Target::host()}) {
      LoadedArtifact art(m, t);
      std::vector<float> ys(static_cast<size_t>(n));
      ASSERT_EQ(art.run({xs.data()}, {ys.data()}), 0);
      for (int64_t k = 0; k < n; ++k) EXPECT_EQ(ys[size_t(k)], xs[size_t(k)] * cs[size_t(k)]);
    }
}

TEST(CTarget, OptionsForAnotherCpuAreUserErrors) {
  Var i("i");
  TempDir dir;
  Buffer xf = make_buffer("X", DataType::f32(), {4});
  Buffer yf = make_buffer("Y", DataType::f32(), {4});
  Stmt copy = For::make(i, i64(0), i64(4), ForKind::kSerial, BufferStore::make(yf, xf(i), {i}));
  IRModule mf = single_kernel_module("copy", {xf, yf}, copy, 1);
  try {
    build_shared_library(mf, Target::parse("c -mcpu=cortex-m4"), dir.file("m.so"));
    FAIL() << "built a host library for a Cortex-M4";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("use --output-format mlf"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.so")));
}

TEST(CTarget, TargetOptionsAreTheCompilersAndRoundTrip) {
  Target t = Target::parse("c -mcpu=cortex-m55 -mfloat-abi=hard");
  EXPECT_EQ(t.kind, Target::kC);
  EXPECT_EQ(t.mcpu, "cortex-m55");
  EXPECT_EQ(t.c_flags, (std::vector<std::string>{"-mcpu=cortex-m55", "-mfloat-abi=hard"}));
  EXPECT_EQ(t.str(), "c -mcpu=cortex-m55 -mfloat-abi=hard");
  EXPECT_EQ(Target::parse(t.str()).str(), t.str());
  EXPECT_THROW(Target::parse("c -mcpu=cortex-m4;rm"), UserError);
  EXPECT_THROW(Target::parse("c -mattr=+neon"), UserError);
}

}  // namespace
}  // namespace ingot::codegen::test
