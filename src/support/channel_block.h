// The channel block of CPU convolutions: how many channels sit together in the innermost
// dimension of a channel-blocked (NCHWc) tensor, and the output-channel width of the blocked
// convolution's register tile. Shared by the graph layout pass (which lays tensors out) and the
// convolution schedule (whose micro-kernel writes them), so both agree.
// Also the CPU vector ISA as the schedules see it (CpuVectorIsa), a plain value the driver fills
// from codegen::Target, so schedule/, lower/ and graph/ need not know about codegen.
#pragma once

#include <cstdint>

namespace ingot {

// The vector ISA of a CPU target, as far as register-tile choices depend on it. The packed
// layouts (matmul panel width, channel block) follow vector_bits alone; the micro-kernel's lane
// count, name and the rows a tile may use follow the architecture: 128-bit x86 (SSE, 16 xmm) and
// NEON (32 q registers, fmla) differ although both have 128-bit vectors.
struct CpuVectorIsa {
  enum Arch { kX86, kAArch64 };
  Arch arch = kX86;
  int vector_bits = 512;  // widest vector register

  // x86 with that widest register (AVX-512 512, AVX/AVX2 256, SSE 128).
  static CpuVectorIsa x86(int bits) { return {kX86, bits}; }
  // AArch64 Advanced SIMD: 32 128-bit registers v0-v31, fmla.
  static CpuVectorIsa aarch64_neon() { return {kAArch64, 128}; }

  // FP32 lanes of the register-tile micro-kernel's vectors: NEON 4; x86 16 with AVX-512, else 8
  // (the AVX2 kernel, which LLVM splits into xmm halves on a 128-bit x86 target).
  int tile_lanes() const { return arch == kAArch64 ? 4 : vector_bits >= 512 ? 16 : 8; }
  // The micro-kernel name prefix: "aarch64_neon", "x86_avx512", "x86_avx2".
  const char* kernel_prefix() const {
    return arch == kAArch64 ? "aarch64_neon" : vector_bits >= 512 ? "x86_avx512" : "x86_avx2";
  }
};

// Two vector registers (32 floats on AVX-512, 16 on AVX2) when the channels divide into them,
// else one, else (few channels) the channels rounded up to whole vectors.
inline int channel_block(int64_t channels, int vector_bits) {
  int lanes = vector_bits >= 512 ? 16 : 8;
  if (channels % (2 * lanes) == 0) return 2 * lanes;
  if (channels % lanes == 0 || channels > 2 * lanes) return lanes;
  return int((channels + lanes - 1) / lanes * lanes);
}

}  // namespace ingot
