// AArch64 code generation on any build machine: the NEON-scheduled matmul becomes an AArch64
// object whose code uses fmla on 4 x f32 q registers, LLD links it into an AArch64 shared library
// with the artifact symbol, and the 4-lane micro-kernel computes the right numbers (run on the
// host, where the same tir compiles for the host ISA). Running the aarch64 artifacts themselves
// is tests/python/test_aarch64_qemu.py's job (qemu-aarch64).
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>

#include "artifact_util.h"
#include "codegen/llvm/codegen_llvm.h"
#include "common/packed_matmul.h"
#include "elf_reader.h"
#include "schedule/rules/matmul.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;
using schedule::MatmulConfig;
using schedule::PackedMatmul;

MatmulConfig neon_config() {
  MatmulConfig cfg;
  cfg.vector_bits = 128;
  cfg.arch = CpuVectorIsa::kAArch64;
  cfg.mc = 24, cfg.nc = 64, cfg.kc = 64;
  return cfg;
}

struct NeonGemm {
  PackedMatmul m;
  IRModule mod;
};

NeonGemm neon_gemm(int64_t M, int64_t N, int64_t K) {
  MatmulConfig cfg = neon_config();
  NeonGemm g{schedule::make_packed_matmul(M, N, K, schedule::matmul_panel_width(cfg)), {}};
  schedule::Schedule s(g.m.func);
  schedule::schedule_packed_matmul(s, "C", cfg);
  g.mod = single_kernel_module("gemm", {g.m.A, g.m.Bp, g.m.C}, s.func().body, 2);
  return g;
}

// The words of the executable sections of a relocatable ELF64 object, and its machine.
struct ObjectCode {
  uint16_t machine = 0;
  std::vector<uint32_t> words;
};

ObjectCode read_object_code(const std::vector<uint8_t>& obj) {
  ObjectCode code;
  if (obj.size() < sizeof(Elf64_Ehdr) || std::memcmp(obj.data(), ELFMAG, SELFMAG) != 0) return code;
  Elf64_Ehdr eh;
  std::memcpy(&eh, obj.data(), sizeof(eh));
  code.machine = eh.e_machine;
  for (int i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, obj.data() + eh.e_shoff + size_t(i) * eh.e_shentsize, sizeof(sh));
    if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
    for (size_t off = 0; off + 4 <= sh.sh_size; off += 4) {
      uint32_t w;
      std::memcpy(&w, obj.data() + sh.sh_offset + off, 4);
      code.words.push_back(w);
    }
  }
  return code;
}

// FMLA Vd.4S, Vn.4S, Vm.4S (vector) and FMLA Vd.4S, Vn.4S, Vm.S[i] (by element).
bool is_fmla_4s(uint32_t w) {
  return (w & 0xFFE0FC00u) == 0x4E20CC00u || (w & 0xFFC0F400u) == 0x4F801000u;
}

TEST(AArch64Codegen, NeonMatmulObjectUsesFmlaOnQRegisters) {
  NeonGemm g = neon_gemm(24, 64, 96);
  for (const char* cpu : {"neoverse-n1", "cortex-a72", "apple-m1"}) {
    Target t = Target::parse(std::string("llvm -mtriple=aarch64-linux-gnu -mcpu=") + cpu);
    EXPECT_TRUE(t.is_aarch64());
    ObjectCode code = read_object_code(emit_object(g.mod, t));
    EXPECT_EQ(code.machine, EM_AARCH64) << cpu;
    int64_t fmla = std::count_if(code.words.begin(), code.words.end(), is_fmla_4s);
    // One k step of the 6 x 16 tile is 24 fmla (6 rows x 4 q registers).
    EXPECT_GE(fmla, 24) << cpu << ": " << code.words.size() << " instructions";
  }
}

// Loads and stores of q registers based on SP (STR/LDR Q with an unsigned offset, the unscaled,
// pre- and post-indexed forms, STP/LDP/STNP/LDNP Q in every addressing mode): register spills
// of the 128-bit accumulators.
bool is_q_stack_access(uint32_t w) {
  if (((w >> 5) & 31u) != 31u) return false;  // base register SP
  return (w & 0xFF800000u) == 0x3D800000u ||  // STR/LDR Qt, [SP, #uimm]
         (w & 0xFF800000u) == 0x3C800000u ||  // STUR/LDUR, pre/post-index, register offset
         (w & 0xFC000000u) == 0xAC000000u;    // STP/LDP/STNP/LDNP Qt, Qt2
}

TEST(AArch64Codegen, NeonTileFitsTheRegisterFile) {
  // The 6 x 16 tile (29 of 32 registers) runs without spilling a q register; an 8 x 16 tile
  // (A packed in 8-row panels: 32 accumulators + 4 + 1 = 37) cannot, which shows the check can
  // see a spill.
  Target t = Target::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1");
  NeonGemm fits = neon_gemm(24, 64, 96);
  ObjectCode code = read_object_code(emit_object(fits.mod, t));
  EXPECT_EQ(std::count_if(code.words.begin(), code.words.end(), is_q_stack_access), 0);

  PackedMatmul m = schedule::make_packed_matmul(32, 64, 96, 16, 0, false, /*mr_packed_a=*/8);
  schedule::Schedule s(m.func);
  schedule::schedule_packed_matmul(s, "C", neon_config());
  IRModule mod = single_kernel_module("gemm", {m.A, m.Ap, m.Bp, m.C}, s.func().body, 3);
  code = read_object_code(emit_object(mod, t));
  EXPECT_GT(std::count_if(code.words.begin(), code.words.end(), is_q_stack_access), 0);
}

TEST(AArch64Codegen, WithoutNeonThereIsNoFmla) {
  // The scan tells NEON code from scalar code: with NEON off, the same kernel has no fmla.
  NeonGemm g = neon_gemm(24, 64, 96);
  ObjectCode code = read_object_code(emit_object(
      g.mod, Target::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=generic -mattr=-neon")));
  EXPECT_EQ(code.machine, EM_AARCH64);
  EXPECT_GT(code.words.size(), 100u);
  EXPECT_EQ(std::count_if(code.words.begin(), code.words.end(), is_fmla_4s), 0);
}

TEST(AArch64Codegen, LldLinksAnAArch64SharedLibrary) {
  NeonGemm g = neon_gemm(6, 16, 8);
  TempDir dir;
  std::string so = dir.file("gemm_aarch64.so");
  build_shared_library(g.mod, Target::parse("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1"),
                       so);
  ElfInfo info = read_elf(so);
  EXPECT_EQ(info.machine, EM_AARCH64);
  EXPECT_NE(
      std::find(info.defined_globals.begin(), info.defined_globals.end(), INGOT_ARTIFACT_SYMBOL),
      info.defined_globals.end());
  // With Debian's cross libc installed, the target's libm is found (and never x86-64's).
  bool cross_libm = std::filesystem::exists("/usr/aarch64-linux-gnu/lib/libm.so.6") ||
                    std::filesystem::exists("/lib/aarch64-linux-gnu/libm.so.6") ||
                    std::filesystem::exists("/usr/lib/aarch64-linux-gnu/libm.so.6");
  bool needs_libm =
      std::find(info.needed.begin(), info.needed.end(), "libm.so.6") != info.needed.end();
  EXPECT_EQ(needs_libm, cross_libm);
}

TEST(AArch64Codegen, NeonKernelNumbersOnTheHost) {
  // The 4-lane tile (with M, N and K tails) compiled for the host computes the product.
  for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{6, 48, 64}, {5, 37, 70}}) {
    NeonGemm g = neon_gemm(M, N, K);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> a(size_t(M * K)), b(size_t(K * N));
    for (float& x : a) x = d(rng);
    for (float& x : b) x = d(rng);
    std::vector<float> bp = schedule::pack_b_panels(b.data(), K, N, g.m.nr);
    std::vector<float> c(size_t(M * N), -7.0f);
    LoadedArtifact art(g.mod);
    ASSERT_EQ(art.run({a.data(), bp.data()}, {c.data()}), 0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double want = 0;
        for (int64_t k = 0; k < K; ++k) want += double(a[size_t(i * K + k)]) * b[size_t(k * N + j)];
        ASSERT_NEAR(c[size_t(i * N + j)], want, 1e-4) << M << "x" << N << " at " << i << ", " << j;
      }
  }
}

}  // namespace
}  // namespace ingot::codegen::test
