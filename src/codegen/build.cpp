// One call from an IRModule to a loadable artifact: codegen for the target, then link.
#include "codegen/build.h"

#include <chrono>

#include "codegen/c/c_library.h"
#include "codegen/gpu/device_lowering.h"
#include "codegen/link.h"
#include "codegen/llvm/codegen_llvm.h"
#include "support/error.h"

namespace ingot::codegen {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A device artifact: the device code and its launches in a record for the host.
BuildStats build_device_library(const tir::IRModule& module, const Target& target,
                                const std::string& out_path) {
  BuildStats stats;
  ScratchDir scratch;
  auto t0 = Clock::now();
  DeviceCode device = lower_device_code(module, target);
  std::vector<std::string> objects =
      emit_device_artifact_objects(module, device, target.str(), scratch);
  stats.codegen_ms = ms_since(t0);
  t0 = Clock::now();
  link_object_files(objects, Target::host(), out_path);
  stats.link_ms = ms_since(t0);
  stats.objects = int(objects.size());
  stats.threads = 1;
  stats.device_summary = device.summary;
  return stats;
}

}  // namespace

std::string emit_device_source(const tir::IRModule& module, const Target& target) {
  return lower_device_code(module, target).source;
}

BuildStats build_shared_library(const tir::IRModule& module, const Target& target,
                                const std::string& out_path, const BuildOptions& options) {
  if (target.is_gpu()) return build_device_library(module, target, out_path);
  if (target.kind == Target::kC) return build_c_shared_library(module, target, out_path);
  BuildStats stats;
  ScratchDir scratch;
  auto t0 = Clock::now();
  ObjectFileStats objects_stats;
  std::vector<std::string> objects = emit_object_files(
      module, target, scratch, {options.threads, options.on_kernel}, &objects_stats);
  stats.codegen_ms = ms_since(t0);
  t0 = Clock::now();
  link_object_files(objects, target, out_path);
  stats.link_ms = ms_since(t0);
  stats.objects = objects_stats.objects;
  stats.threads = objects_stats.threads;
  for (const auto& k : objects_stats.kernels) stats.kernels.push_back({k.name, k.ms});
  return stats;
}

}  // namespace ingot::codegen
