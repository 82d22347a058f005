// Micro-kernels that measure this CPU's floating-point peak per ISA: independent chains of
// vector FMAs (multiply + add where the ISA has no FMA) kept in registers, no memory traffic;
// and per ISA a streaming sum, the read-bandwidth kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ingot::cli {

struct PeakKernel {
  std::string isa;  // "sse2", "avx2+fma", "avx512f", "neon"
  int lanes;        // float32 lanes per vector
  // Runs `iterations` rounds of the kernel's chains; returns the float32 FLOPs it did.
  double (*run)(int64_t iterations);
  // Sums data[0, n) (n a multiple of 64) with full-width loads into independent accumulators:
  // with the widest ISA, one core keeps enough cache-line reads in flight to show the memory's
  // bandwidth (an SSE2 sum read 10.8 GB/s on one core where AVX-512's read 14.7, docs/perf.md).
  float (*sum)(const float* data, size_t n);
};

// The kernels this CPU can run (by ingot_cpu_supports), narrowest first.
std::vector<PeakKernel> peak_kernels_for_this_cpu();

}  // namespace ingot::cli
