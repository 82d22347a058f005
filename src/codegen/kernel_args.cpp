// Aliasing of kernel arguments across the entry's calls (see kernel_args.h).
#include "codegen/kernel_args.h"

#include "tir/op.h"

namespace ingot::codegen {
namespace {

using tir::ArgRef;

// Byte size of a parameter buffer, or -1 when its shape is not constant.
int64_t buffer_bytes(const tir::Buffer& b) {
  int64_t n = b->dtype.bytes();
  for (const tir::Expr& d : b->shape) {
    int64_t v = 0;
    if (!tir::is_const_int(d, &v)) return -1;
    n *= v;
  }
  return n;
}

bool may_overlap(const tir::IRModule& m, const ArgRef& a, int64_t a_bytes, const ArgRef& b,
                 int64_t b_bytes) {
  if (a.kind != b.kind) return false;
  if (a.kind == ArgRef::kInput || a.kind == ArgRef::kOutput || a.kind == ArgRef::kSymbol)
    return a.value == b.value;
  if (a.kind == ArgRef::kWorkspaceAt)  // slots of a symbolic plan never overlap each other
    return m.workspace_offsets.at(size_t(a.value)).slot ==
           m.workspace_offsets.at(size_t(b.value)).slot;
  if (a_bytes < 0 || b_bytes < 0) return true;
  return a.value < b.value + b_bytes && b.value < a.value + a_bytes;
}

}  // namespace

std::vector<std::vector<bool>> noalias_params(const tir::IRModule& m) {
  std::vector<std::vector<bool>> out;
  for (const auto& k : m.kernels) out.emplace_back(k.params.size(), true);
  for (const auto& call : m.entry) {
    if (!call.is_call()) continue;
    const auto& params = m.kernels[call.kernel].params;
    for (size_t i = 0; i < call.args.size(); ++i)
      for (size_t j = 0; j < call.args.size(); ++j)
        if (i != j && may_overlap(m, call.args[i], buffer_bytes(params[i]), call.args[j],
                                  buffer_bytes(params[j])))
          out[call.kernel][i] = false;
  }
  return out;
}

}  // namespace ingot::codegen
