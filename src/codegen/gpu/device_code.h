// What a device artifact carries (include/ingot/abi.h IngotDeviceCode), as the compiler builds it:
// the device code (OpenCL C source), its function names, and the launches that run the model, each
// with the argument places of tir::ArgRef. Built by codegen/gpu/device_lowering.h, written into the
// artifact's record by codegen/llvm/module_builder.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tir/module.h"

namespace ingot::codegen {

struct DeviceLaunch {
  int function = 0;  // index into DeviceCode::functions
  int kernel = 0;    // index into IRModule::kernels
  std::array<uint32_t, 3> grid = {1, 1, 1}, block = {1, 1, 1};
  std::vector<tir::ArgRef> args;
};

struct DeviceCode {
  int format = 0;               // INGOT_DEVICE_CODE_*
  int device_type = 0;          // DLPack device type: 2 CUDA, 4 OpenCL
  std::string source;           // the printed program (OpenCL C, CUDA C++)
  std::string code;             // what the artifact carries: the OpenCL C source, or PTX
  std::vector<uint8_t> binary;  // CUDA: cubin
  std::string summary;          // CUDA: ptxas's registers and spills, one line
  std::vector<std::string> functions;
  std::vector<DeviceLaunch> launches;  // in order
};

}  // namespace ingot::codegen
