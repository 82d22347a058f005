// The architecture of the visible NVIDIA GPU, for `--target cuda` without -arch: the driver
// (libcuda.so.1, or $INGOT_CUDA_LIBRARY as the runtime opens it) is opened with dlopen and asked
// for the compute capability of device $INGOT_CUDA_DEVICE (default 0). No driver, no device or
// any failure gives nullopt (the target then defaults to sm_80), never an error: compiling for a
// GPU does not need one.
#pragma once

#include <optional>
#include <string>

namespace ingot::codegen {

// "sm_<major><minor>" of the visible GPU, or nullopt; asked once per process.
std::optional<std::string> visible_cuda_arch();

}  // namespace ingot::codegen
