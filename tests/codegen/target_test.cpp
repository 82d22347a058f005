// Target string parsing: kinds, options, host defaults, canonical printing and errors.
#include <gtest/gtest.h>

#include "codegen/target.h"
#include "support/error.h"

#include <algorithm>

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
  HostCpu h = detect_host_cpu();
  std::string diff = minimal_feature_diff(h);
  EXPECT_EQ(t.str(), "llvm -mcpu=" + host_cpu() + (diff.empty() ? "" : " -mattr=" + diff));
  EXPECT_EQ(Target::host().str(), t.str());
  EXPECT_EQ(Target::parse("llvm -mcpu=native").str(), t.str());
  // The host's string describes the same features on any machine.
  Target again = Target::parse(t.str());
  EXPECT_FALSE(again.mattr_from_host);
  EXPECT_EQ(again.isa_features, t.isa_features);
  EXPECT_EQ(again.vector_bits, t.vector_bits);
}

TEST(Target, HostFeaturesCarryTheirSignEnabledFirst) {
  std::string f = host_features();
  HostCpu h = detect_host_cpu();
  size_t enabled = 0, disabled = 0;
  for (const auto& [name, on] : h.features) (on ? enabled : disabled)++;
  EXPECT_EQ(size_t(std::count(f.begin(), f.end(), '+')), enabled);
  EXPECT_EQ(size_t(std::count(f.begin(), f.end(), ',')) + 1, enabled + disabled);
  // Disables come after every enable, so they win over anything an enable implies.
  bool seen_disable = false;
  for (size_t start = 0; start < f.size();) {
    size_t end = std::min(f.find(',', start), f.size());
    if (f[start] == '-') seen_disable = true;
    if (f[start] == '+') {
      EXPECT_FALSE(seen_disable) << "an enable after a disable: " << f;
    }
    start = end + 1;
  }
}

HostCpu fake_x86_host(const std::string& cpu, std::map<std::string, bool> features) {
  return HostCpu{"x86_64-pc-linux-gnu", cpu, std::move(features)};
}

TEST(Target, VectorWidthFollowsFeaturesNotTheCpuName) {
  // A Zen 4 name (implies AVX-512) on a VM that hides AVX-512.
  HostCpu vm = fake_x86_host("znver4", {{"avx2", true},
                                        {"fma", true},
                                        {"avx512f", false},
                                        {"avx512bw", false},
                                        {"avx512vl", false},
                                        {"evex512", false}});
  set_host_cpu_override(vm);
  Target t = Target::parse("llvm");
  set_host_cpu_override(std::nullopt);
  EXPECT_EQ(t.mcpu, "znver4");
  EXPECT_EQ(t.vector_bits, 256);
  EXPECT_EQ(t.vector_isa, "avx2");
  EXPECT_NE(t.mattr.find("-avx512f"), std::string::npos) << t.mattr;
  EXPECT_NE(t.str().find("-avx512f"), std::string::npos) << t.str();
  EXPECT_EQ(std::count(t.isa_features.begin(), t.isa_features.end(), "avx512f"), 0);
  EXPECT_EQ(std::count(t.isa_features.begin(), t.isa_features.end(), "avx2"), 1);
  // The same CPU named explicitly means its own defaults (cross-compiling for a real Zen 4).
  Target real = Target::parse("llvm -mtriple=x86_64-pc-linux-gnu -mcpu=znver4");
  EXPECT_EQ(real.vector_bits, 512);
  EXPECT_EQ(std::count(real.isa_features.begin(), real.isa_features.end(), "avx512f"), 1);
  // -mattr on top of a CPU name wins over its implied features.
  EXPECT_EQ(Target::parse("llvm -mcpu=skylake-avx512 -mattr=-avx512f").vector_bits, 256);
  EXPECT_EQ(Target::parse("llvm -mcpu=haswell").vector_bits, 256);
  EXPECT_EQ(Target::parse("llvm -mcpu=x86-64").vector_bits, 128);
  EXPECT_EQ(Target::parse("llvm -mcpu=x86-64-v4").vector_bits, 512);
}

TEST(Target, RequirementLeavesOutFeaturesTheCodeNeverUses) {
  // znver3 implies sha/vaes/adx; ingot's code never uses them, so they are not required. It also
  // implies sse4a, which LLVM selects on its own (EXTRQ/INSERTQ shuffles): required.
  Target z3 = Target::parse("llvm -mcpu=znver3");
  for (const char* f : {"sha", "vaes", "adx", "aes", "pclmul"})
    EXPECT_EQ(std::count(z3.isa_features.begin(), z3.isa_features.end(), f), 0) << f;
  for (const char* f : {"avx2", "fma", "avx", "sse4a"})
    EXPECT_EQ(std::count(z3.isa_features.begin(), z3.isa_features.end(), f), 1) << f;
  // x86-64-v3 is portable AVX2: a Haswell (Intel) and a Zen 1 (AMD) have all it needs.
  Target v3 = Target::parse("llvm -mcpu=x86-64-v3");
  EXPECT_EQ(v3.vector_bits, 256);
  for (const char* cpu : {"haswell", "znver1"}) {
    Target t = Target::parse(std::string("llvm -mcpu=") + cpu);
    for (const std::string& f : v3.isa_features)
      EXPECT_EQ(std::count(t.isa_features.begin(), t.isa_features.end(), f), 1) << cpu << " " << f;
  }
}

TEST(Target, Aarch64Cpus) {
  for (const char* cpu : {"neoverse-n1", "cortex-a72", "apple-m1"}) {
    Target t = Target::parse(std::string("llvm -mtriple=aarch64-linux-gnu -mcpu=") + cpu);
    EXPECT_TRUE(t.is_aarch64());
    EXPECT_EQ(t.vector_isa, "neon") << cpu;
    EXPECT_EQ(t.vector_bits, 128) << cpu;
    EXPECT_EQ(std::count(t.isa_features.begin(), t.isa_features.end(), "neon"), 1) << cpu;
  }
  EXPECT_EQ(
      user_error_of("llvm -mtriple=aarch64-linux-gnu -mcpu=native"),
      "-mcpu=native needs the host's triple (" + host_triple() + "), got 'aarch64-linux-gnu'");
}

TEST(Target, UnknownCpuOrFeatureListsNearMatches) {
  std::string e = user_error_of("llvm -mcpu=skylake-avx513");
  EXPECT_EQ(e.rfind("unknown CPU 'skylake-avx513' for x86_64 in target 'llvm "
                    "-mcpu=skylake-avx513' (nearest: skylake-avx512, ",
                    0),
            0u)
      << e;
  e = user_error_of("llvm -mcpu=haswell -mattr=+avx513f");
  EXPECT_EQ(e.rfind("unknown feature 'avx513f' for x86_64 in -mattr (nearest: avx512f", 0), 0u)
      << e;
  EXPECT_EQ(user_error_of("llvm -mcpu=haswell -mattr=avx2"),
            "feature 'avx2' in -mattr needs a sign: '+avx2' enables it, '-avx2' disables it");
  e = user_error_of("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n7");
  EXPECT_EQ(e.rfind("unknown CPU 'neoverse-n7' for aarch64", 0), 0u) << e;
  e = user_error_of("llvm -mtriple=riscv99-linux-gnu");
  EXPECT_EQ(e.rfind("target triple 'riscv99-linux-gnu' is not supported", 0), 0u) << e;
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

TEST(Target, OpenClParsesWithItsThreadLimit) {
  Target t = Target::parse("opencl");
  EXPECT_EQ(t.kind, Target::kOpenCL);
  EXPECT_TRUE(t.is_gpu());
  EXPECT_EQ(t.max_num_threads, 256);
  EXPECT_EQ(t.str(), "opencl");
  Target small = Target::parse("opencl -max-num-threads=64");
  EXPECT_EQ(small.max_num_threads, 64);
  EXPECT_EQ(small.str(), "opencl -max-num-threads=64");
  EXPECT_EQ(Target::parse(small.str()).max_num_threads, 64);
  // The shared (local) memory per block the tiles may use: the kind's default unless given.
  EXPECT_EQ(t.max_shared_memory_per_block, 0);
  Target big = Target::parse("opencl -max-shared-memory-per-block=65536");
  EXPECT_EQ(big.max_shared_memory_per_block, 65536);
  EXPECT_EQ(big.str(), "opencl -max-shared-memory-per-block=65536");
  EXPECT_EQ(Target::parse(big.str()).max_shared_memory_per_block, 65536);
  EXPECT_EQ(Target::parse("cuda -arch=sm_90 -max-shared-memory-per-block=100").str(),
            "cuda -arch=sm_90 -max-shared-memory-per-block=100");
}

TEST(Target, Errors) {
  EXPECT_EQ(user_error_of("llvm -foo"),
            "unknown option '-foo' for target 'llvm' (valid: -mcpu, -mattr, -mtriple, -opt-level)");
  EXPECT_EQ(user_error_of("llvm -foo=1"),
            "unknown option '-foo' for target 'llvm' (valid: -mcpu, -mattr, -mtriple, -opt-level)");
  EXPECT_EQ(user_error_of("cuda -mcpu=x"),
            "unknown option '-mcpu' for target 'cuda' (valid: -arch, "
            "-max-shared-memory-per-block)");
  EXPECT_EQ(user_error_of("c -mattr=+x"),
            "unknown option '-mattr' for target 'c' (valid: -mcpu, -march, -mfpu, -mfloat-abi, "
            "-mtune)");
  EXPECT_EQ(user_error_of("c -mcpu=a$b"),
            "option '-mcpu' of target 'c': 'a$b' is not a valid value");
  EXPECT_EQ(user_error_of("vulkan"), "unknown target kind 'vulkan' (valid: llvm, c, cuda, opencl)");
  EXPECT_EQ(user_error_of(""), "empty target string (valid kinds: llvm, c, cuda, opencl)");
  EXPECT_EQ(user_error_of("opencl -arch=sm_80"),
            "unknown option '-arch' for target 'opencl' (valid: -max-num-threads, "
            "-max-shared-memory-per-block)");
  EXPECT_EQ(user_error_of("opencl -max-shared-memory-per-block=0"),
            "-max-shared-memory-per-block must be a byte count from 1 to 2^30, got '0'");
  EXPECT_EQ(user_error_of("cuda -max-shared-memory-per-block=48k"),
            "-max-shared-memory-per-block must be a byte count from 1 to 2^30, got '48k'");
  EXPECT_EQ(user_error_of("opencl -max-num-threads=48"),
            "-max-num-threads must be a power of two from 1 to 1024, got '48'");
  EXPECT_EQ(user_error_of("opencl -max-num-threads=2048"),
            "-max-num-threads must be a power of two from 1 to 1024, got '2048'");
  EXPECT_EQ(user_error_of("llvm -mcpu"),
            "option '-mcpu' of target 'llvm' needs a value (-mcpu=...)");
}

// The VNNI condition the int8 rule and the codegen share (Target::int8_dot_quads).
TEST(Target, Int8DotQuadsFollowTheVnniFeatures) {
  EXPECT_FALSE(Target::parse("llvm -mcpu=haswell").int8_dot_quads(8));
  EXPECT_TRUE(Target::parse("llvm -mcpu=haswell -mattr=+avxvnni").int8_dot_quads(8));
  EXPECT_FALSE(Target::parse("llvm -mcpu=haswell -mattr=+avxvnni").int8_dot_quads(16));
  const Target icx = Target::parse("llvm -mcpu=icelake-server");
  EXPECT_TRUE(icx.int8_dot_quads(16));
  EXPECT_TRUE(icx.int8_dot_quads(8));  // AVX512-VNNI with AVX512VL
  EXPECT_FALSE(Target::parse("llvm -mcpu=skylake-avx512").int8_dot_quads(16));
  EXPECT_FALSE(
      Target::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1").int8_dot_quads(8));
}

}  // namespace
}  // namespace ingot::codegen
