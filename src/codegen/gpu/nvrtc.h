// CUDA C++ to PTX and cubin with NVRTC, opened with dlopen at the first `--target cuda` compile
// (libnvrtc from the CUDA toolkit; $INGOT_NVRTC_LIBRARY overrides the name), so ingot builds and
// runs without the toolkit and only CUDA compiles need it. The few entry points are declared by
// NVRTC's stable C ABI.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ingot::codegen {

struct NvrtcOutput {
  std::string ptx;             // for the virtual architecture of `arch` (forward compatible)
  std::vector<uint8_t> cubin;  // for `arch` itself
  std::string log;             // NVRTC's and ptxas's messages (-v: registers, spills)
  // Per kernel, from ptxas: registers, and spill stores + loads in bytes.
  struct Kernel {
    int registers = 0;
    int spill_bytes = 0;
  };
  std::map<std::string, Kernel> kernels;
};

// Compiles `source` (a program named `name`) for `arch` ("sm_80", "sm_90"). UserError when NVRTC
// cannot be opened or the program does not compile (with the first lines of the log).
NvrtcOutput compile_cuda(const std::string& source, const std::string& name,
                         const std::string& arch);

// The NVRTC version ("13.0"), or "" when it cannot be opened.
std::string nvrtc_version();

}  // namespace ingot::codegen
