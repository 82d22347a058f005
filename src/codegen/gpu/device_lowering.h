// The GPU lowering: loop-form kernels scheduled for a GPU target (loops bound to blockIdx.x /
// threadIdx.x by the GPU rules) become device functions and the launches that run the model.
// Each top-level statement of a kernel is one launch, in order: a nest bound to blockIdx.x and,
// inside it, threadIdx.x runs over grid x block threads; a statement with no bound loop runs on
// one thread. Per-thread allocations and lets around those statements go with each launch; the
// device functions take only the kernel parameters they use. The device code is then printed
// for the target (device_printer.h: OpenCL C or CUDA C++).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/gpu/device_code.h"
#include "codegen/target.h"
#include "tir/module.h"

namespace ingot::codegen {

struct DeviceFunction {
  std::string name;                // unique in the module, a C identifier
  int kernel = 0;                  // its IRModule kernel
  std::vector<int> param_indices;  // the kernel parameters it takes, in kernel order
  std::vector<tir::Buffer> params;
  std::vector<bool> noalias;  // per param: no other argument overlaps it in any call (CUDA
                              // __restrict__)
  tir::Stmt body;
  tir::Var block_var, thread_var;  // blockIdx.x / threadIdx.x; undefined for one thread
  std::array<uint32_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
};

// The device functions of one loop-form kernel. UserError naming the kernel for what the GPU
// lowering cannot run yet (a bound loop under a serial one, a workspace allocation, vector code).
std::vector<DeviceFunction> split_device_functions(const tir::PrimFunc& kernel, int kernel_index);

// The device code of a module whose kernels are in loop form (scheduled for `target`, a GPU
// kind, and through the loop passes): its functions printed for the target and one launch per
// function per call of its kernel in the entry.
DeviceCode lower_device_code(const tir::IRModule& module, const Target& target);

}  // namespace ingot::codegen
