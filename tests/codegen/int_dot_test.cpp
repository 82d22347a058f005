// The integer dot product dot_i32 (codegen/llvm/int_dot.cpp) against its closed form: uint8 x
// int8 in groups of 4 (VPDPBUSD where the target has VNNI, a widening sequence elsewhere) and
// int16 pairs (VPMADDWD on AVX2), over operands at the ends of their ranges. The AVX2 builds
// (-mcpu=haswell) run on every x86-64 CI machine; the VNNI ones run where the CPU has it, and
// their IR is checked for the instruction everywhere.
#include <gtest/gtest.h>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

// Y[0:lanes] = dot_i32(ACC[0:lanes], A[0:lanes*g], B[0:lanes*g]); with `widen`, A and B are
// loaded as `a_t` / `b_t` and cast to int16 first (the AVX2 tile's form).
IRModule dot_module(DataType a_t, DataType b_t, int lanes, int group, bool widen) {
  Buffer acc = make_buffer("ACC", DataType::i32(), {lanes});
  Buffer a = make_buffer("A", a_t, {lanes * group});
  Buffer b = make_buffer("B", b_t, {lanes * group});
  Buffer y = make_buffer("Y", DataType::i32(), {lanes});
  Expr wide = Ramp::make(i64(0), i64(1), lanes * group);
  Expr av = a.load({wide}), bv = b.load({wide});
  if (widen) {
    av = cast(DataType::i16(lanes * group), av);
    bv = cast(DataType::i16(lanes * group), bv);
  }
  Expr narrow = Ramp::make(i64(0), i64(1), lanes);
  Stmt body =
      BufferStore::make(y, call(Intrinsic::dot_i32, {acc.load({narrow}), av, bv}), {narrow});
  return single_kernel_module("dot", {acc, a, b, y}, body, 3);
}

template <typename A, typename B>
void check_runs(const IRModule& m, const Target& target, int lanes, int group, std::vector<A> as,
                std::vector<B> bs) {
  LoadedArtifact art(m, target);
  std::vector<int32_t> acc(static_cast<size_t>(lanes)), y(static_cast<size_t>(lanes), -7);
  for (int l = 0; l < lanes; ++l) acc[size_t(l)] = l % 2 ? -1000000 * l : 12345 * l;
  ASSERT_EQ(art.run({acc.data(), as.data(), bs.data()}, {y.data()}), 0);
  for (int l = 0; l < lanes; ++l) {
    int64_t want = acc[size_t(l)];
    for (int t = 0; t < group; ++t)
      want += int64_t(as[size_t(l * group + t)]) * int64_t(bs[size_t(l * group + t)]);
    // (int32 arithmetic: a sum past its range wraps, as the instructions' do)
    EXPECT_EQ(y[size_t(l)], int32_t(uint32_t(uint64_t(want)))) << "lane " << l;
  }
}

// uint8 / int8 operands covering 0, 255, -128 and 127 in every lane.
std::vector<uint8_t> u8_values(int n) {
  std::vector<uint8_t> v;
  for (int i = 0; i < n; ++i) v.push_back(uint8_t(i % 3 == 0 ? 255 : (i * 37) % 256));
  return v;
}
std::vector<int8_t> s8_values(int n) {
  std::vector<int8_t> v;
  for (int i = 0; i < n; ++i) v.push_back(int8_t(i % 4 == 0 ? -128 : i % 4 == 1 ? 127 : i * 13));
  return v;
}

TEST(IntDot, Uint8Int8GroupsOfFourUseVnniWhereTheTargetHasIt) {
  IRModule m = dot_module(DataType::u8(), DataType::i8(), 8, 4, false);
  EXPECT_NE(emit_llvm_ir(m, Target::parse("llvm -mcpu=haswell -mattr=+avxvnni"))
                .find("@llvm.x86.avx512.vpdpbusd.256"),
            std::string::npos);
  EXPECT_NE(emit_llvm_ir(dot_module(DataType::u8(), DataType::i8(), 16, 4, false),
                         Target::parse("llvm -mcpu=icelake-server"))
                .find("@llvm.x86.avx512.vpdpbusd.512"),
            std::string::npos);
  std::string avx2 = emit_llvm_ir(m, Target::parse("llvm -mcpu=haswell"));
  EXPECT_EQ(avx2.find("vpdpbusd"), std::string::npos);
  check_runs(m, Target::parse("llvm -mcpu=haswell"), 8, 4, u8_values(32), s8_values(32));
  if (ingot_cpu_supports("avxvnni") == 1)
    check_runs(m, Target::parse("llvm -mcpu=haswell -mattr=+avxvnni"), 8, 4, u8_values(32),
               s8_values(32));
  if (ingot_cpu_supports("avx512vnni") == 1)
    check_runs(dot_module(DataType::u8(), DataType::i8(), 16, 4, false),
               Target::parse("llvm -mcpu=icelake-server"), 16, 4, u8_values(64), s8_values(64));
}

TEST(IntDot, Int16PairsUseVpmaddwdOnAvx2) {
  // uint8 and int8 loads widened to int16: the AVX2 tile's operands.
  IRModule m = dot_module(DataType::u8(), DataType::i8(), 8, 2, true);
  EXPECT_NE(emit_llvm_ir(m, Target::parse("llvm -mcpu=haswell")).find("@llvm.x86.avx2.pmadd.wd"),
            std::string::npos);
  check_runs(m, Target::parse("llvm -mcpu=haswell"), 8, 2, u8_values(16), s8_values(16));
  // int16 operands near their ends (not both -32768 in one pair: documented overflow).
  IRModule w = dot_module(DataType::i16(), DataType::i16(), 8, 2, false);
  std::vector<int16_t> as, bs;
  for (int i = 0; i < 16; ++i) {
    as.push_back(int16_t(i % 2 ? 32767 : -32768));
    bs.push_back(int16_t(i % 3 ? -32768 : 32767));
  }
  check_runs(w, Target::parse("llvm -mcpu=haswell"), 8, 2, as, bs);
}

TEST(IntDot, PortableSequenceOnOtherTargets) {
  // x86-64 without AVX2 (SSE only): the widening sequence, in groups of 4 and 2.
  Target sse = Target::parse("llvm -mcpu=x86-64");
  IRModule m = dot_module(DataType::u8(), DataType::i8(), 8, 4, false);
  std::string ir = emit_llvm_ir(m, sse);
  EXPECT_EQ(ir.find("vpdpbusd"), std::string::npos);
  EXPECT_EQ(ir.find("pmadd"), std::string::npos);
  check_runs(m, sse, 8, 4, u8_values(32), s8_values(32));
  check_runs(dot_module(DataType::u8(), DataType::i8(), 8, 2, true), sse, 8, 2, u8_values(16),
             s8_values(16));
}

}  // namespace
}  // namespace ingot::codegen::test
