// Micro-kernels that measure this CPU's floating-point peak per ISA: independent chains of
// vector FMAs (multiply + add where the ISA has no FMA) kept in registers, no memory traffic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ingot::cli {

struct PeakKernel {
  std::string isa;  // "sse2", "avx2+fma", "avx512f", "neon"
  int lanes;        // float32 lanes per vector
  // Runs `iterations` rounds of the kernel's chains; returns the float32 FLOPs it did.
  double (*run)(int64_t iterations);
};

// The kernels this CPU can run (by ingot_cpu_supports), narrowest first.
std::vector<PeakKernel> peak_kernels_for_this_cpu();

}  // namespace ingot::cli
