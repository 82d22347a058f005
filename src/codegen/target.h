// Compilation targets: what a target string ("llvm -mcpu=znver4 -mattr=+avx512f", "c",
// "cuda -arch=sm_90", "opencl") means, parsed and checked once and passed to the backends.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ingot::codegen {

struct Target {
  enum Kind { kLLVM, kC, kCUDA, kOpenCL };
  static constexpr int kDefaultMaxNumThreads = 256;
  Kind kind = kLLVM;
  std::string triple;  // LLVM target triple ("x86_64-pc-linux-gnu"); empty for c/cuda
  std::string mcpu;    // llvm: CPU name; cuda: the -arch value ("sm_90")
  std::string mattr;   // llvm: the comma-separated feature list handed to LLVM ("+avx2,-avx512f")
  int vector_bits = 128;  // widest SIMD register the resolved features allow (512, 256, 128)
  int opt_level = 3;      // llvm: 0..3
  // GPU kinds: the most threads (work-items) per block (work-group) a default schedule uses.
  int max_num_threads = kDefaultMaxNumThreads;
  // GPU kinds: the shared (local) memory a block may declare, in bytes; 0: the kind's default
  // (codegen/gpu/device_lowering.h max_shared_bytes).
  int64_t max_shared_memory_per_block = 0;
  // llvm, resolved from the CPU name *and* the features (never the name alone):
  std::string vector_isa;                 // "avx512", "avx2", "avx", "sse", "neon", "none"
  std::vector<std::string> isa_features;  // the runtime-checkable features the code may use
  // True when the target is the machine ingot runs on (mattr carries every host feature with its
  // sign, as clang's -march=native). str() then prints only the features that differ from the
  // CPU name's defaults (host_mattr_diff), so the string is short and means the same elsewhere.
  bool mattr_from_host = false;
  std::string host_mattr_diff;
  // c: the options for the C compiler that builds the code, as given ("-mcpu=cortex-m4",
  // "-mfpu=fpv4-sp-d16", ...; -mcpu also fills `mcpu`). Recorded in an MLF's metadata and its
  // build files; a shared library (built for the host) takes none.
  std::vector<std::string> c_flags;

  bool is_gpu() const;  // cuda, opencl
  bool is_x86() const;
  bool is_aarch64() const;
  // Whether the code may use this runtime-checkable feature (one of isa_features, "avx512vnni").
  bool has_feature(const std::string& feature) const;
  // Whether `lanes` int32 lanes multiply uint8 x int8 in groups of four. x86 (8: 256-bit,
  // 16: 512-bit): VPDPBUSD, AVX-VNNI or AVX512-VNNI (with AVX512VL at 256 bits). AArch64 (4):
  // USDOT with i8mm, SDOT of the uint8 operand moved to int8 with dotprod. The int8 rule's group
  // and the codegen's instruction both follow it (rules/int8_matmul.h, llvm/int_dot.cpp).
  bool int8_dot_quads(int lanes) const;
  // x86: whether the AMX tiles multiply uint8 x int8 (amx-tile and amx-int8: TDPBUSD) or
  // bfloat16 pairs (amx-tile and amx-bf16: TDPBF16PS).
  bool amx_int8() const;
  bool amx_bf16() const;
  // Whether `lanes` int32 lanes multiply int8 x int8 in groups of four: AArch64 SDOT (dotprod).
  bool int8_signed_dot_quads(int lanes) const;
  // x86: whether `lanes` float32 lanes (8: 256-bit, 16: 512-bit) take bfloat16 pair products
  // (VDPBF16PS): AVX512-BF16 (with AVX512VL at 256 bits). The bfloat16 rule's tile and the
  // codegen's instruction both follow it (rules/bf16_matmul.h, llvm/bf16_dot.cpp).
  bool bf16_dot_pairs(int lanes) const;
  // cuda: the compute capability of -arch as a number (sm_90: 90); 0 for other kinds.
  int sm_version() const;
  // Canonical spec; Target::parse(t.str()) describes the same target on any host.
  std::string str() const;
  // Parses and checks a target spec: unknown kinds, options, triples, CPUs and features are
  // UserErrors naming the offender and the nearest valid names, raised before any codegen.
  static Target parse(const std::string& spec);
  // The machine ingot runs on: "llvm" with the host triple, CPU and every feature with its sign.
  static Target host();
};

// What the host CPU is, as LLVM detects it: its name and every feature LLVM knows with its state.
struct HostCpu {
  std::string triple;
  std::string cpu;
  std::map<std::string, bool> features;
};

// Host detection (implemented with LLVM in codegen/llvm/host_target.cpp).
HostCpu detect_host_cpu();
// Tests only: makes detect_host_cpu() (and so Target::host() and "llvm") answer `cpu` instead of
// the real host, e.g. a Zen 4 name with AVX-512 hidden; std::nullopt restores the real one.
void set_host_cpu_override(std::optional<HostCpu> cpu);
std::string host_triple();
std::string host_cpu();
// Every host feature with its sign, enabled ones first ("+avx2,+fma,...,-avx512f,..."), so the
// disables win over what an enabled feature implies and LLVM never enables what the host lacks.
std::string host_features();
// The same list for a given host.
std::string signed_features(const HostCpu& host);

// Resolution and validation of an llvm target (codegen/llvm/target_features.cpp): checks the
// triple, CPU and feature names against LLVM's lists for the triple (UserError with near
// matches), then fills vector_bits, vector_isa and isa_features from the effective features.
void resolve_llvm_target(Target& t);
// The features of `host` that differ from what `host.cpu` implies on its own ("-avx512f,...").
std::string minimal_feature_diff(const HostCpu& host);
// The features ingot records as an artifact's ISA requirement for this architecture (each one
// the runtime can test with CPUID or HWCAP), e.g. "avx2", "fma", "avx512f"; empty when none.
const std::vector<std::string>& checkable_isa_features(const std::string& triple);
// A multi-line human description: triple, CPU, vector ISA, the requirement (--print-target).
std::string describe_target(const Target& t);

}  // namespace ingot::codegen
