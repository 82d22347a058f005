// The visible GPU's architecture (see cuda_arch.h).
#include "codegen/gpu/cuda_arch.h"

#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

namespace ingot::codegen {

namespace {

std::optional<std::string> query_cuda_arch() {
  // The driver API's stable C ABI (cuda.h): CUresult is an int, CUdevice an int.
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int*, int);
  using Attribute = int (*)(int*, int, int);
  constexpr int kMajor = 75, kMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / MINOR
  const char* env = std::getenv("INGOT_CUDA_LIBRARY");
  void* lib = dlopen(env && *env ? env : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return std::nullopt;
  auto init = reinterpret_cast<Init>(dlsym(lib, "cuInit"));
  auto device_get = reinterpret_cast<DeviceGet>(dlsym(lib, "cuDeviceGet"));
  auto attribute = reinterpret_cast<Attribute>(dlsym(lib, "cuDeviceGetAttribute"));
  const char* dev_env = std::getenv("INGOT_CUDA_DEVICE");
  int ordinal = dev_env && *dev_env ? std::atoi(dev_env) : 0;
  int device = 0, major = 0, minor = 0;
  std::optional<std::string> arch;
  if (init && device_get && attribute && init(0) == 0 && device_get(&device, ordinal) == 0 &&
      attribute(&major, kMajor, device) == 0 && attribute(&minor, kMinor, device) == 0 && major > 0)
    arch = fmt::format("sm_{}{}", major, minor);
  dlclose(lib);
  return arch;
}

}  // namespace

// Asked once per process: a driver's cuInit can take a good fraction of a second, and a compile
// parses its target more than once.
std::optional<std::string> visible_cuda_arch() {
  static const std::optional<std::string> arch = query_cuda_arch();
  return arch;
}

}  // namespace ingot::codegen
