// OpenCL C and CUDA C++ for the device functions of the GPU lowering (device_lowering.h), one
// printer for both dialects. OpenCL: one __kernel per function; each buffer parameter arrives as
// the cl_mem of its memory (the workspace, the constants, an input or an output) and a byte
// offset into it (ulong), since OpenCL 1.2 hosts cannot offset a buffer by an arbitrary amount,
// and becomes a typed pointer at the top of the kernel; blockIdx.x / threadIdx.x are
// get_group_id(0) / get_local_id(0). CUDA: one extern "C" __global__ function per function with
// __launch_bounds__ of its block, taking typed __restrict__ pointers (the runtime adds the
// offsets); infinities and NaNs as bit patterns (NVRTC has no <math.h> macros). Arithmetic
// follows the LLVM backend's semantics: floor division and modulo of signed integers, min / max
// of floats as compare-and-select (a NaN operand gives the other one), round half to even
// (rint), sigmoid as 1 / (1 + exp(-x)). float64 needs the device's cl_khr_fp64 on OpenCL.
// float16 in memory is stored as 16 bits and computed in float32. Vector code: only copies of a
// contiguous run (vectorized loops), printed as one vector access; on CUDA from sm_80 an aligned
// run from global into shared memory is an asynchronous cp.async, which every barrier waits
// for. Other vector code is a UserError naming the kernel.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "codegen/gpu/device_lowering.h"

namespace ingot::codegen {

// The whole OpenCL C program: a prelude of helpers, then one kernel per function.
std::string print_opencl(const std::vector<DeviceFunction>& functions);
// The whole CUDA C++ program for NVRTC (no includes), for that compute capability (80 for sm_80;
// 0: none assumed). Each function's __launch_bounds__ gives its block size; those named in
// `roomy` also ask for at least 512 resident threads per multiprocessor, which lets ptxas use up
// to 128 registers per thread (without it, ptxas aims at full occupancy and may spill).
std::string print_cuda(const std::vector<DeviceFunction>& functions, int sm_version = 0,
                       const std::set<std::string>& roomy = {});
// One function's text in the dialect with the function and every identifier of its own (its
// buffers and variables) named by order of first use: two functions print the same exactly when
// one is the other renamed, so one compiled function can serve the launches of both (equal
// fused ops of equal shapes, as ResNet-50's repeated blocks have).
std::string print_canonical(const DeviceFunction& f, bool cuda);

}  // namespace ingot::codegen
