// float32(x mod 16) over int32 vectors (the int4 weights' nibbles): on AVX-512 a vpermps table
// lookup (codegen/llvm/nibble_lookup.cpp), elsewhere an and plus a conversion. Both are checked
// against the closed form over values that cover every nibble, negatives and large magnitudes;
// the AVX2 build (-mcpu=haswell) runs everywhere, the AVX-512 one where the CPU has it.
#include <gtest/gtest.h>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "ingot/runtime.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

constexpr int kLanes = 64;

// y[0:64] = float32(floormod(x[0:64], 16)) + float32(floormod(floordiv(x[0:64], 16), 16)).
IRModule nibble_module() {
  Buffer x = make_buffer("X", DataType::i32(), {kLanes});
  Buffer y = make_buffer("Y", DataType::f32(), {kLanes});
  Expr lanes = Ramp::make(i64(0), i64(1), kLanes);
  Expr v = x.load({lanes});
  Expr sixteen = Broadcast::make(make_const(DataType::i32(), 16), kLanes);
  Expr low = cast(DataType::f32(kLanes), floormod(v, sixteen));
  Expr high = cast(DataType::f32(kLanes), floormod(floordiv(v, sixteen), sixteen));
  return single_kernel_module("nibbles", {x, y}, BufferStore::make(y, low + high, {lanes}), 1);
}

std::vector<int32_t> nibble_inputs() {
  std::vector<int32_t> xs;
  for (int k = 0; k < kLanes; ++k) {
    int32_t magnitude = k < 32 ? k * 17 : (k - 32) * 0x1234567;
    xs.push_back(k % 3 == 0 ? -magnitude : magnitude);
  }
  return xs;
}

float closed_form(int32_t x) {
  auto fmod16 = [](int64_t v) { return ((v % 16) + 16) % 16; };
  int64_t q = x >= 0 ? x / 16 : -((-int64_t(x) + 15) / 16);  // floor division
  return float(fmod16(x) + fmod16(q));
}

void check_runs(const Target& target) {
  LoadedArtifact art(nibble_module(), target);
  std::vector<int32_t> xs = nibble_inputs();
  std::vector<float> ys(kLanes, -1.0f);
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}), 0);
  for (int k = 0; k < kLanes; ++k)
    EXPECT_EQ(ys[size_t(k)], closed_form(xs[size_t(k)])) << "x = " << xs[size_t(k)];
}

TEST(NibbleLookup, Avx512UsesTheTableLookup) {
  std::string ir = emit_llvm_ir(nibble_module(), Target::parse("llvm -mcpu=skylake-avx512"));
  EXPECT_NE(ir.find("@llvm.x86.avx512.permvar.sf.512"), std::string::npos);
  std::string avx2 = emit_llvm_ir(nibble_module(), Target::parse("llvm -mcpu=haswell"));
  EXPECT_EQ(avx2.find("permvar"), std::string::npos);
}

TEST(NibbleLookup, Avx2MatchesTheClosedForm) {
  check_runs(Target::parse("llvm -mcpu=haswell"));
}

TEST(NibbleLookup, Avx512MatchesTheClosedForm) {
  if (ingot_cpu_supports("avx512f") != 1) GTEST_SKIP() << "this CPU has no AVX-512";
  check_runs(Target::parse("llvm -mcpu=skylake-avx512"));
}

}  // namespace
}  // namespace ingot::codegen::test
