// One call from an IRModule to a loadable artifact: codegen for the target, then link.
#include "codegen/build.h"

#include "codegen/link.h"
#include "codegen/llvm/codegen_llvm.h"
#include "support/error.h"

namespace ingot::codegen {

void build_shared_library(const tir::IRModule& module, const Target& target,
                          const std::string& out_path) {
  if (target.kind != Target::kLLVM)
    fail_user("a shared library needs an llvm target, got '{}'", target.str());
  link_shared_library(emit_object(module, target), target, out_path);
}

}  // namespace ingot::codegen
