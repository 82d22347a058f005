// Host detection for Target: the process triple, CPU name and every CPU feature with its state
// (LLVM's host queries), with an override that tests use to play another machine.
#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>

#include <mutex>

#include "codegen/target.h"

namespace ingot::codegen {
namespace {

std::mutex& override_lock() {
  static std::mutex m;
  return m;
}

std::optional<HostCpu>& host_override() {
  static std::optional<HostCpu> cpu;
  return cpu;
}

}  // namespace

HostCpu detect_host_cpu() {
  {
    std::lock_guard<std::mutex> lock(override_lock());
    if (host_override()) return *host_override();
  }
  HostCpu h;
  h.triple = llvm::sys::getProcessTriple();
  h.cpu = llvm::sys::getHostCPUName().str();
  for (const auto& f : llvm::sys::getHostCPUFeatures()) h.features[f.first().str()] = f.second;
  return h;
}

void set_host_cpu_override(std::optional<HostCpu> cpu) {
  std::lock_guard<std::mutex> lock(override_lock());
  host_override() = std::move(cpu);
}

std::string host_triple() {
  std::lock_guard<std::mutex> lock(override_lock());
  return host_override() ? host_override()->triple : llvm::sys::getProcessTriple();
}

std::string host_cpu() {
  std::lock_guard<std::mutex> lock(override_lock());
  return host_override() ? host_override()->cpu : llvm::sys::getHostCPUName().str();
}

std::string host_features() {
  return signed_features(detect_host_cpu());
}

std::string signed_features(const HostCpu& h) {
  std::string on, off;
  for (const auto& [name, enabled] : h.features) {
    std::string& s = enabled ? on : off;
    s += (s.empty() ? "" : ",") + std::string(enabled ? "+" : "-") + name;
  }
  return on.empty() ? off : off.empty() ? on : on + "," + off;
}

}  // namespace ingot::codegen
