// The GPU lowering: loop-form kernels scheduled for a GPU target (loops bound to blockIdx.* /
// threadIdx.* by the GPU rules) become device functions and the launches that run the model.
// Each top-level statement of a kernel is one launch, in order: its outer loops bound to
// blockIdx axes are the grid; every loop bound to a threadIdx axis inside is that axis's threads
// (the block is the largest extent per axis, smaller loops masked; a loop bound to an axis
// inside another bound to it, a cooperative copy, is the same threads again); a statement with
// no bound loop runs on one thread; a threadIdx loop that reduces into one element is a reduction
// across the threads (thread_reduction.h). Shared memory is declared per function, with
// barriers where threads exchange data through it (thread_sync.h). Per-thread allocations and lets
// around those statements go with each launch; the device functions take only the kernel parameters
// they use. The device code is then printed for the target (device_printer.h: OpenCL C or CUDA
// C++).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
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
  // blockIdx.x/y/z and threadIdx.x/y/z as variables of the body; undefined where unused.
  std::array<tir::Var, 3> block_vars, thread_vars;
  std::array<uint32_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
  std::vector<tir::Buffer> shared;  // shared memory, declared at the top of the function
  std::unordered_set<const tir::StmtNode*> sync_before;  // statements of body after a barrier
};

// The device functions of one loop-form kernel. UserError naming the kernel for what the GPU
// lowering cannot run yet (a bound loop under a serial one, a workspace allocation, vector code)
// and for a function declaring more than `max_shared_bytes` of shared memory. `warp_shuffles`
// (CUDA): reductions across threads end in warp shuffles (thread_reduction.h).
std::vector<DeviceFunction> split_device_functions(const tir::PrimFunc& kernel, int kernel_index,
                                                   int64_t max_shared_bytes = 48 * 1024,
                                                   bool warp_shuffles = false);

// The elements of a buffer of constant shape (per-thread and shared buffers); nullopt when a
// dimension is not a constant.
std::optional<int64_t> constant_elements(const tir::BufferNode& b);

// Static shared memory a thread block may declare: the target's -max-shared-memory-per-block,
// else 48 KB on CUDA (without opting in to more), 32 KB on OpenCL (the minimum
// CL_DEVICE_LOCAL_MEM_SIZE a full-profile device has).
int64_t max_shared_bytes(const Target& target);

// The device code of a module whose kernels are in loop form (scheduled for `target`, a GPU
// kind, and through the loop passes): its functions printed for the target and one launch per
// function per call of its kernel in the entry.
DeviceCode lower_device_code(const tir::IRModule& module, const Target& target);

}  // namespace ingot::codegen
