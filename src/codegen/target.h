// Compilation targets: what a target string ("llvm -mcpu=znver4 -mattr=+avx512f", "c",
// "cuda -arch=sm_90") means, parsed once and passed to the backends.
#pragma once

#include <string>

namespace ingot::codegen {

struct Target {
  enum Kind { kLLVM, kC, kCUDA };
  Kind kind = kLLVM;
  std::string triple;     // LLVM target triple ("x86_64-pc-linux-gnu"); empty for c/cuda
  std::string mcpu;       // llvm: CPU name; cuda: the -arch value ("sm_90")
  std::string mattr;      // llvm: comma-separated feature list ("+avx512f,+fma")
  int vector_bits = 128;  // widest native SIMD register, used by schedules and vectorizer
  int opt_level = 3;      // llvm: 0..3
  // True when mattr was filled from the host CPU (then str() leaves it out: it is long and
  // implied by "-mcpu" on the same machine).
  bool mattr_from_host = false;

  // Canonical spec; Target::parse(t.str()) describes the same target on the same host.
  std::string str() const;
  // Parses a target spec. Throws UserError naming the unknown kind or option (and listing
  // the valid ones) or the malformed value.
  static Target parse(const std::string& spec);
  // The machine ingot runs on: "llvm" with the host triple, CPU and features.
  static Target host();
};

// Host detection (implemented with LLVM in codegen/llvm/host_target.cpp).
std::string host_triple();
std::string host_cpu();
std::string host_features();  // enabled features only, "+a,+b,..."

}  // namespace ingot::codegen
