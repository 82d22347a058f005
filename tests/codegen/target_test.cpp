// Target string parsing: kinds, options, host defaults, canonical printing and errors.
#include <gtest/gtest.h>

#include "codegen/target.h"
#include "support/error.h"

namespace ingot::codegen {
namespace {

std::string user_error_of(const std::string& spec) {
  try {
    Target::parse(spec);
  } catch (const UserError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Target, PlainLlvmIsTheHost) {
  Target t = Target::parse("llvm");
  EXPECT_EQ(t.kind, Target::kLLVM);
  EXPECT_EQ(t.triple, host_triple());
  EXPECT_EQ(t.mcpu, host_cpu());
  EXPECT_EQ(t.mattr, host_features());
  EXPECT_TRUE(t.mattr_from_host);
  EXPECT_EQ(t.opt_level, 3);
  EXPECT_EQ(t.str(), "llvm -mcpu=" + host_cpu());
  Target h = Target::host();
  EXPECT_EQ(h.str(), t.str());
}

TEST(Target, CpuAndAttributes) {
  Target t = Target::parse("llvm -mcpu=znver4 -mattr=+avx512f,+fma");
  EXPECT_EQ(t.mcpu, "znver4");
  EXPECT_EQ(t.mattr, "+avx512f,+fma");
  EXPECT_FALSE(t.mattr_from_host);
  EXPECT_EQ(t.vector_bits, 512);
  EXPECT_EQ(t.str(), "llvm -mcpu=znver4 -mattr=+avx512f,+fma");
  EXPECT_EQ(Target::parse(t.str()).str(), t.str());
  EXPECT_EQ(
      Target::parse("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=haswell -mattr=+avx2").vector_bits,
      256);
  EXPECT_EQ(Target::parse("llvm -mcpu=x86-64 -mattr=+sse4.2").vector_bits, 128);
}

TEST(Target, CrossTripleDefaultsToGenericCpu) {
  Target t = Target::parse("llvm -mtriple=aarch64-linux-gnu");
  EXPECT_EQ(t.triple, "aarch64-linux-gnu");
  EXPECT_EQ(t.mcpu, "generic");
  EXPECT_EQ(t.mattr, "");
  EXPECT_EQ(t.vector_bits, 128);
  EXPECT_EQ(t.str(), "llvm -mtriple=aarch64-linux-gnu -mcpu=generic");
}

TEST(Target, OptLevel) {
  EXPECT_EQ(Target::parse("llvm -opt-level=1").opt_level, 1);
  EXPECT_NE(Target::parse("llvm -opt-level=1").str().find("-opt-level=1"), std::string::npos);
  EXPECT_EQ(user_error_of("llvm -opt-level=7"), "-opt-level must be 0, 1, 2 or 3, got '7'");
}

TEST(Target, CAndCuda) {
  Target c = Target::parse("c");
  EXPECT_EQ(c.kind, Target::kC);
  EXPECT_EQ(c.str(), "c");
  Target cu = Target::parse("cuda -arch=sm_90");
  EXPECT_EQ(cu.kind, Target::kCUDA);
  EXPECT_EQ(cu.mcpu, "sm_90");
  EXPECT_EQ(cu.str(), "cuda -arch=sm_90");
}

TEST(Target, Errors) {
  EXPECT_EQ(user_error_of("llvm -foo"),
            "unknown option '-foo' for target 'llvm' (valid: -mcpu, -mattr, -mtriple, -opt-level)");
  EXPECT_EQ(user_error_of("llvm -foo=1"),
            "unknown option '-foo' for target 'llvm' (valid: -mcpu, -mattr, -mtriple, -opt-level)");
  EXPECT_EQ(user_error_of("cuda -mcpu=x"),
            "unknown option '-mcpu' for target 'cuda' (valid: -arch)");
  EXPECT_EQ(user_error_of("c -mcpu=x"), "unknown option '-mcpu' for target 'c' (valid: none)");
  EXPECT_EQ(user_error_of("opencl"), "unknown target kind 'opencl' (valid: llvm, c, cuda)");
  EXPECT_EQ(user_error_of(""), "empty target string (valid kinds: llvm, c, cuda)");
  EXPECT_EQ(user_error_of("llvm -mcpu"),
            "option '-mcpu' of target 'llvm' needs a value (-mcpu=...)");
}

}  // namespace
}  // namespace ingot::codegen
