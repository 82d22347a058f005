// The one-kernel harness of a tuning candidate (see tune_harness.h).
#include "driver/tune_harness.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "support/error.h"
#include "tir/visitor.h"

namespace ingot::driver {

namespace {

// The parameters a kernel stores to.
std::set<const tir::BufferNode*> written_params(const tir::PrimFunc& f) {
  struct Stores : tir::IRVisitor {
    std::set<const tir::BufferNode*> seen;
    void visit_BufferStore(const tir::BufferStore* op, const tir::Stmt& s) override {
      seen.insert(op->buffer.get());
      tir::IRVisitor::visit_BufferStore(op, s);
    }
  } v;
  v.visit_stmt(f.body);
  std::set<const tir::BufferNode*> out;
  for (const tir::Buffer& b : f.params)
    if (v.seen.count(b.get())) out.insert(b.get());
  return out;
}

int64_t bytes_of(const tir::Buffer& b, std::vector<int64_t>* shape) {
  int64_t n = 1;
  for (const tir::Expr& d : b->shape) {
    auto* imm = d.as<tir::IntImm>();
    INGOT_ICHECK(imm != nullptr, "tune: parameter {} has a symbolic shape", b->name);
    shape->push_back(imm->value);
    n *= imm->value;
  }
  return n * b->dtype.bits / 8;
}

}  // namespace

tir::IRModule harness_for(const tir::IRModule& model, int k) {
  const tir::KernelCall* call = nullptr;
  for (const tir::KernelCall& c : model.entry)
    if (c.is_call() && c.kernel == k) {
      call = &c;
      break;
    }
  INGOT_ICHECK(call != nullptr, "tune: kernel {} is never called", model.kernels[size_t(k)].name);
  const tir::PrimFunc& f = model.kernels[size_t(k)];
  std::set<const tir::BufferNode*> written = written_params(f);
  tir::IRModule h;
  h.model_name = "tune_" + f.name;
  h.kernels = {f};
  tir::KernelCall run{0, {}};
  for (size_t p = 0; p < f.params.size(); ++p) {
    // (A scratch parameter as lowered, an 8-bit conv's int32 sums, has no argument: the
    // schedule keeps it, bound to the workspace after scheduling, or makes it local memory.)
    if (std::find(f.scratch_params.begin(), f.scratch_params.end(), int(p)) !=
        f.scratch_params.end())
      continue;
    INGOT_ICHECK(p < call->args.size(), "tune: kernel {} is called with {} arguments for {}",
                 f.name, call->args.size(), f.params.size());
    const tir::Buffer& b = f.params[p];
    const tir::ArgRef& a = call->args[p];
    tir::TensorDesc d;
    d.name = fmt::format("p{}_{}", p, b->name);
    d.dtype = b->dtype;
    int64_t bytes = bytes_of(b, &d.shape);
    d.dim_names.assign(d.shape.size(), "");
    if (a.kind == tir::ArgRef::kConstant && !written.count(b.get())) {
      size_t at = (h.constants.size() + 63) / 64 * 64;
      h.constants.resize(at);
      auto src = model.constants.begin() + std::ptrdiff_t(a.value);
      h.constants.insert(h.constants.end(), src, src + bytes);
      run.args.push_back({tir::ArgRef::kConstant, int64_t(at)});
    } else if (written.count(b.get())) {
      run.args.push_back({tir::ArgRef::kOutput, int64_t(h.outputs.size())});
      h.outputs.push_back(d);
    } else {
      run.args.push_back({tir::ArgRef::kInput, int64_t(h.inputs.size())});
      h.inputs.push_back(d);
    }
  }
  h.entry = {run};
  return h;
}

}  // namespace ingot::driver
