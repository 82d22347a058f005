// Host detection for Target: the process triple, CPU name and enabled CPU features.
#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <vector>

#include "codegen/target.h"

namespace ingot::codegen {

std::string host_triple() {
  return llvm::sys::getProcessTriple();
}

std::string host_cpu() {
  return llvm::sys::getHostCPUName().str();
}

std::string host_features() {
  std::vector<std::string> on;
  for (const auto& f : llvm::sys::getHostCPUFeatures())
    if (f.second) on.push_back("+" + f.first().str());
  std::sort(on.begin(), on.end());
  std::string s;
  for (auto& f : on) s += (s.empty() ? "" : ",") + f;
  return s;
}

}  // namespace ingot::codegen
