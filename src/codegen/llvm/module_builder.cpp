// Builds the llvm::Module of an IRModule: the constant blob, one function per kernel, the
// entry function that runs the kernel calls in order, and the exported IngotArtifact record
// (the only symbol with default visibility). Either all in one module, or split for parallel
// codegen: kernel modules (hidden kernel functions) and an entry module that declares them and
// the constant blob, which a data object outside LLVM carries.
#include "codegen/llvm/module_builder.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <cstddef>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codegen/kernel_args.h"
#include "codegen/llvm/kernel_lowering.h"
#include "ingot/abi.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::codegen {
namespace {

using tir::ArgRef;

class RecordBuilder {
 public:
  explicit RecordBuilder(llvm::Module& m) : m_(m), ctx_(m.getContext()) {}

  llvm::Type* ptr() { return llvm::PointerType::get(ctx_, 0); }
  llvm::Type* i8() { return llvm::Type::getInt8Ty(ctx_); }
  llvm::Type* i16() { return llvm::Type::getInt16Ty(ctx_); }
  llvm::Type* i32() { return llvm::Type::getInt32Ty(ctx_); }
  llvm::Type* i64() { return llvm::Type::getInt64Ty(ctx_); }
  llvm::Type* f64() { return llvm::Type::getDoubleTy(ctx_); }
  llvm::StructType* dtype_ty() { return llvm::StructType::get(ctx_, {i8(), i8(), i16()}); }
  llvm::StructType* tensor_ty() {
    return llvm::StructType::get(ctx_, {ptr(), dtype_ty(), i32(), ptr(), ptr(), ptr()});
  }
  llvm::StructType* kernel_ty() {
    return llvm::StructType::get(ctx_, {ptr(), f64(), f64(), ptr()});
  }
  llvm::StructType* artifact_ty() {
    return llvm::StructType::get(
        ctx_, {i64(), i32(), i32(), ptr(), ptr(), i32(), i32(), ptr(), i32(), ptr(), i64(), i64(),
               ptr(), i32(), ptr(), ptr(), ptr(), i32(), ptr(), ptr(), ptr(), ptr(), i32(), ptr()});
  }
  llvm::StructType* state_ty() {
    return llvm::StructType::get(ctx_, {tensor_ty(), i32(), i32(), i32(), i32(), i64()});
  }
  llvm::Constant* states(const std::vector<tir::StateDesc>& sts) {
    std::vector<llvm::Constant*> items;
    for (const tir::StateDesc& st : sts)
      items.push_back(llvm::ConstantStruct::get(
          state_ty(),
          {tensor(st.tensor, "states"), ci(i32(), uint64_t(st.axis)),
           ci(i32(), uint64_t(st.length_symbol)), ci(i32(), uint64_t(int64_t(st.step_symbol))),
           ci(i32(), 0), ci(i64(), uint64_t(st.step))}));
    return array(state_ty(), items, "states");
  }
  llvm::StructType* symbol_ty() { return llvm::StructType::get(ctx_, {ptr(), i64(), i64()}); }

  llvm::Constant* symbols(const std::vector<tir::SymbolDesc>& syms) {
    std::vector<llvm::Constant*> items;
    for (const tir::SymbolDesc& s : syms)
      items.push_back(llvm::ConstantStruct::get(
          symbol_ty(), {str(s.name), ci(i64(), uint64_t(s.min)), ci(i64(), uint64_t(s.max))}));
    return array(symbol_ty(), items, "symbols");
  }
  llvm::StructType* device_arg_ty() { return llvm::StructType::get(ctx_, {i32(), i32(), i64()}); }
  llvm::StructType* device_launch_ty() {
    auto* dims = llvm::ArrayType::get(i32(), 3);
    return llvm::StructType::get(ctx_, {i32(), i32(), dims, dims, i32(), i32()});
  }
  llvm::StructType* device_code_ty() {
    return llvm::StructType::get(
        ctx_, {i32(), i32(), ptr(), i64(), ptr(), i32(), i32(), ptr(), ptr(), ptr(), ptr(), i64()});
  }

  llvm::Constant* ci(llvm::Type* t, uint64_t v) { return llvm::ConstantInt::get(t, v); }

  llvm::Constant* private_global(llvm::Constant* init, const std::string& name) {
    auto* g = new llvm::GlobalVariable(m_, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                       init, name);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return g;
  }
  llvm::Constant* str(const std::string& s) {
    return private_global(llvm::ConstantDataArray::getString(ctx_, s), ".str");
  }
  llvm::Constant* array(llvm::Type* elem, const std::vector<llvm::Constant*>& items,
                        const std::string& name) {
    if (items.empty()) return llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx_, 0));
    return private_global(llvm::ConstantArray::get(llvm::ArrayType::get(elem, items.size()), items),
                          name);
  }

  llvm::Constant* tensor(const tir::TensorDesc& t, const std::string& name) {
    std::vector<llvm::Constant*> dims, names;
    for (int64_t d : t.shape) dims.push_back(ci(i64(), uint64_t(d)));
    for (size_t i = 0; i < t.shape.size(); ++i)
      names.push_back(str(i < t.dim_names.size() ? t.dim_names[i] : ""));
    uint8_t bits = t.dtype.is_bool() ? 8 : t.dtype.bits;
    auto* dt = llvm::ConstantStruct::get(
        dtype_ty(), {ci(i8(), t.dtype.code), ci(i8(), bits), ci(i16(), t.dtype.lanes)});
    return llvm::ConstantStruct::get(
        tensor_ty(),
        {str(t.name), dt, ci(i32(), t.shape.size()), array(i64(), dims, name + ".shape"),
         array(ptr(), names, name + ".dims"), specialized_value(t, name)});
  }
  llvm::Constant* tensors(const std::vector<tir::TensorDesc>& ts, const std::string& name) {
    std::vector<llvm::Constant*> items;
    for (const auto& t : ts) items.push_back(tensor(t, name));
    return array(tensor_ty(), items, name);
  }

  // The bytes a specialised input was compiled for (the runtime's guard compares them), or null.
  llvm::Constant* specialized_value(const tir::TensorDesc& t, const std::string& name) {
    if (!t.specialized_value || t.specialized_value->empty())
      return llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx_, 0));
    const std::vector<uint8_t>& v = *t.specialized_value;
    llvm::StringRef raw(reinterpret_cast<const char*>(v.data()), v.size());
    auto* g = llvm::cast<llvm::GlobalVariable>(private_global(
        llvm::ConstantDataArray::getRaw(raw, v.size(), i8()), name + ".specialized"));
    g->setAlignment(llvm::Align(8));
    return g;
  }

 private:
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
};

// The struct types above must lay out exactly like abi.h's on the host.
void check_abi_layout(llvm::Module& m, RecordBuilder& r) {
  const llvm::DataLayout& dl = m.getDataLayout();
  const auto* a = dl.getStructLayout(r.artifact_ty());
  const auto* t = dl.getStructLayout(r.tensor_ty());
  const auto* k = dl.getStructLayout(r.kernel_ty());
  INGOT_ICHECK(a->getSizeInBytes() == sizeof(IngotArtifact), "IngotArtifact size {} vs {}",
               a->getSizeInBytes(), sizeof(IngotArtifact));
  INGOT_ICHECK(a->getElementOffset(12) == offsetof(IngotArtifact, entry) &&
                   a->getElementOffset(14) == offsetof(IngotArtifact, kernels) &&
                   a->getElementOffset(15) == offsetof(IngotArtifact, isa_features),
               "IngotArtifact layout differs from abi.h");
  INGOT_ICHECK(t->getSizeInBytes() == sizeof(IngotTensorInfo) &&
                   t->getElementOffset(4) == offsetof(IngotTensorInfo, dim_names) &&
                   t->getElementOffset(5) == offsetof(IngotTensorInfo, specialized_value),
               "IngotTensorInfo layout differs from abi.h");
  INGOT_ICHECK(k->getSizeInBytes() == sizeof(IngotKernelInfo) &&
                   k->getElementOffset(3) == offsetof(IngotKernelInfo, ops),
               "IngotKernelInfo layout differs");
  INGOT_ICHECK(a->getElementOffset(16) == offsetof(IngotArtifact, device_code) &&
                   a->getElementOffset(17) == offsetof(IngotArtifact, num_symbols) &&
                   a->getElementOffset(18) == offsetof(IngotArtifact, symbols) &&
                   a->getElementOffset(19) == offsetof(IngotArtifact, shape_fn) &&
                   a->getElementOffset(20) == offsetof(IngotArtifact, workspace_fn) &&
                   a->getElementOffset(21) == offsetof(IngotArtifact, value_fn) &&
                   a->getElementOffset(23) == offsetof(IngotArtifact, states),
               "IngotArtifact layout differs from abi.h");
  const auto* state = dl.getStructLayout(r.state_ty());
  INGOT_ICHECK(state->getSizeInBytes() == sizeof(IngotStateInfo) &&
                   state->getElementOffset(2) == offsetof(IngotStateInfo, length_symbol) &&
                   state->getElementOffset(5) == offsetof(IngotStateInfo, step),
               "IngotStateInfo layout differs from abi.h");
  const auto* sym = dl.getStructLayout(r.symbol_ty());
  INGOT_ICHECK(sym->getSizeInBytes() == sizeof(IngotSymbolInfo) &&
                   sym->getElementOffset(2) == offsetof(IngotSymbolInfo, max_value),
               "IngotSymbolInfo layout differs from abi.h");
  const auto* code = dl.getStructLayout(r.device_code_ty());
  const auto* launch = dl.getStructLayout(r.device_launch_ty());
  INGOT_ICHECK(code->getSizeInBytes() == sizeof(IngotDeviceCode) &&
                   code->getElementOffset(9) == offsetof(IngotDeviceCode, constants) &&
                   code->getElementOffset(11) == offsetof(IngotDeviceCode, binary_bytes) &&
                   launch->getSizeInBytes() == sizeof(IngotDeviceLaunch) &&
                   launch->getElementOffset(4) == offsetof(IngotDeviceLaunch, first_arg) &&
                   dl.getTypeAllocSize(r.device_arg_ty()) == sizeof(IngotDeviceArg),
               "IngotDeviceCode layout differs from abi.h");
}

// The position of a kernel's shape var among the module's symbols (matched by name).
uint64_t symbol_index(const tir::IRModule& mod, const tir::Var& v) {
  for (size_t i = 0; i < mod.symbols.size(); ++i)
    if (mod.symbols[i].name == v.name()) return i;
  fail_internal("shape var '{}' is not a symbol of model '{}'", v.name(), mod.model_name);
}

// `i32 name(ptr symbols, ptr table)`: stores each of `exprs` (int64 expressions of the symbols)
// in table[k], through a serial kernel.
llvm::Function* build_table_fn(llvm::Module& m, const tir::IRModule& mod, const Target& target,
                               const std::string& name, const std::vector<tir::Expr>& exprs) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  tir::Buffer out =
      tir::Buffer::make("table", tir::DataType::i64(),
                        std::vector<int64_t>{int64_t(std::max<size_t>(exprs.size(), 1))});
  std::vector<tir::Stmt> stores;
  for (size_t k = 0; k < exprs.size(); ++k)
    stores.push_back(tir::BufferStore::make(out, exprs[k], {tir::i64(int64_t(k))}));
  tir::PrimFunc body{
      name + "_kernel",
      {out},
      stores.empty() ? tir::Evaluate::make(tir::i64(0)) : tir::SeqStmt::make(stores)};
  for (const tir::SymbolDesc& s : mod.symbols) body.shape_vars.push_back(s.var);
  KernelLowering lowering(m, target);
  llvm::Function* kernel = lowering.lower(body, {true});
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, ptr}, false),
                                    llvm::Function::InternalLinkage, name, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value*> args{fn->getArg(1)};
  for (size_t i = 0; i < mod.symbols.size(); ++i)
    args.push_back(
        b.CreateLoad(b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt64Ty(), fn->getArg(0), i)));
  args.push_back(llvm::ConstantPointerNull::get(ptr));  // no services: the kernel is serial
  b.CreateRet(b.CreateCall(kernel, args));
  return fn;
}

// `i32 shape_fn(ptr symbols, ptr output_dims)`: every output dim under the bound symbols
// (IngotShapeFn); null for a module without symbols.
llvm::Constant* build_shape_fn(llvm::Module& m, const tir::IRModule& mod, const Target& target) {
  if (mod.symbols.empty())
    return llvm::ConstantPointerNull::get(llvm::PointerType::get(m.getContext(), 0));
  std::vector<tir::Expr> dims;
  for (const tir::TensorDesc& t : mod.outputs) {
    for (size_t d = 0; d < t.shape.size(); ++d)
      dims.push_back(t.shape_exprs.empty() ? tir::i64(t.shape[d]) : t.shape_exprs[d]);
  }
  return build_table_fn(m, mod, target, "ingot_shape_fn", dims);
}

// `i32 workspace_fn(ptr symbols, ptr bytes)` (IngotWorkspaceFn): the arena of a symbolic plan
// under the bound symbols; null when the arena is workspace_bytes for every binding.
llvm::Constant* build_workspace_fn(llvm::Module& m, const tir::IRModule& mod,
                                   const Target& target) {
  if (!mod.workspace_size.defined())
    return llvm::ConstantPointerNull::get(llvm::PointerType::get(m.getContext(), 0));
  return build_table_fn(m, mod, target, "ingot_workspace_fn", {mod.workspace_size});
}

// `i32 value_fn(ptr inputs, ptr symbols)` (IngotValueFn): the module's value function kernel
// over the inputs it reads, then the status it stored after the symbols; null without one.
llvm::Constant* build_value_fn(llvm::Module& m, const tir::IRModule& mod, const Target& target) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  if (!mod.value_fn) return llvm::ConstantPointerNull::get(ptr);
  KernelLowering lowering(m, target);
  llvm::Function* kernel = lowering.lower(*mod.value_fn, {true});
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, ptr}, false),
                                    llvm::Function::InternalLinkage, "ingot_value_fn", m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value*> args;
  for (int index : mod.value_fn_inputs)
    args.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, fn->getArg(0), uint64_t(index))));
  args.push_back(fn->getArg(1));
  for (const tir::Var& v : mod.value_fn->shape_vars)
    args.push_back(b.CreateLoad(
        b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt64Ty(), fn->getArg(1), symbol_index(mod, v))));
  args.push_back(llvm::ConstantPointerNull::get(ptr));  // no services: the kernel is serial
  b.CreateCall(kernel, args);
  llvm::Value* status = b.CreateLoad(
      b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt64Ty(), fn->getArg(1), mod.symbols.size()));
  b.CreateRet(b.CreateTrunc(status, i32));
  return fn;
}

llvm::Function* build_entry(llvm::Module& m, const tir::IRModule& mod, const Target& target,
                            const std::vector<llvm::Function*>& kernels,
                            llvm::GlobalVariable* constants) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* fty = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr}, false);
  auto* fn = llvm::Function::Create(fty, llvm::Function::InternalLinkage, "ingot_entry", m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Value* services = fn->getArg(0);
  llvm::Value* inputs = fn->getArg(1);
  llvm::Value* outputs = fn->getArg(2);
  llvm::Value* workspace = fn->getArg(3);
  llvm::Value* symbols = fn->getArg(4);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  auto* st = KernelLowering::services_type(ctx);
  llvm::Value* sctx = b.CreateLoad(ptr, b.CreateStructGEP(st, services, 2), "ctx");
  auto* hook_ty = llvm::FunctionType::get(b.getVoidTy(), {ptr, i32}, false);
  // A symbolic plan: the run-time offsets, computed once from the symbols into a table.
  llvm::Value* offsets = nullptr;
  if (!mod.workspace_offsets.empty()) {
    std::vector<tir::Expr> exprs;
    for (const auto& o : mod.workspace_offsets) exprs.push_back(o.offset);
    llvm::Function* fill = build_table_fn(m, mod, target, "ingot_workspace_offsets", exprs);
    offsets = b.CreateAlloca(b.getInt64Ty(), b.getInt64(exprs.size()), "offsets");
    b.CreateCall(fill, {symbols, offsets});
  }
  auto workspace_at = [&](int64_t index) {
    llvm::Value* off =
        b.CreateLoad(b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt64Ty(), offsets, index));
    return b.CreateGEP(b.getInt8Ty(), workspace, off);
  };
  auto hook = [&](unsigned field, int kernel) {
    llvm::Value* f = b.CreateLoad(ptr, b.CreateStructGEP(st, services, field));
    auto* call_bb = llvm::BasicBlock::Create(ctx, "hook", fn);
    auto* next_bb = llvm::BasicBlock::Create(ctx, "next", fn);
    b.CreateCondBr(b.CreateIsNotNull(f), call_bb, next_bb);
    b.SetInsertPoint(call_bb);
    b.CreateCall(hook_ty, f, {sctx, b.getInt32(kernel)});
    b.CreateBr(next_bb);
    b.SetInsertPoint(next_bb);
  };
  std::map<int, llvm::BasicBlock*> labels;  // control flow (If, Loop, Scan): label -> block
  auto label = [&](int id) {
    llvm::BasicBlock*& bb = labels[id];
    if (bb == nullptr) bb = llvm::BasicBlock::Create(ctx, fmt::format("L{}", id), fn);
    return bb;
  };
  for (const auto& call : mod.entry) {
    if (call.op == tir::KernelCall::kLabel) {
      llvm::BasicBlock* bb = label(call.kernel);
      if (b.GetInsertBlock()->getTerminator() == nullptr) b.CreateBr(bb);
      b.SetInsertPoint(bb);
      continue;
    }
    if (call.op == tir::KernelCall::kJump || call.op == tir::KernelCall::kBranchIfZero) {
      auto* next_bb = llvm::BasicBlock::Create(ctx, "next", fn);
      if (call.op == tir::KernelCall::kJump) {
        b.CreateBr(label(call.kernel));
      } else {
        INGOT_ICHECK(call.args.size() == 1 &&
                         (constants != nullptr || call.args[0].kind != ArgRef::kConstant),
                     "a branch reads one flag");
        const ArgRef& a = call.args[0];
        llvm::Value* p = nullptr;
        if (a.kind == ArgRef::kWorkspaceAt) {
          p = workspace_at(a.value);
        } else if (a.kind == ArgRef::kWorkspace || a.kind == ArgRef::kConstant) {
          p = b.CreateConstGEP1_64(
              b.getInt8Ty(),
              a.kind == ArgRef::kWorkspace ? workspace : static_cast<llvm::Value*>(constants),
              a.value);
        } else {
          llvm::Value* table = a.kind == ArgRef::kInput ? inputs : outputs;
          p = b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, table, a.value));
        }
        llvm::Value* flag = b.CreateLoad(b.getInt8Ty(), p, "flag");
        b.CreateCondBr(b.CreateICmpEQ(flag, b.getInt8(0)), label(call.kernel), next_bb);
      }
      b.SetInsertPoint(next_bb);
      continue;
    }
    INGOT_ICHECK(call.kernel >= 0 && size_t(call.kernel) < kernels.size(),
                 "entry calls kernel {} of {}", call.kernel, kernels.size());
    INGOT_ICHECK(call.args.size() == mod.kernels[call.kernel].params.size(),
                 "kernel {} called with {} arguments, takes {}", mod.kernels[call.kernel].name,
                 call.args.size(), mod.kernels[call.kernel].params.size());
    std::vector<llvm::Value*> args;
    for (const ArgRef& a : call.args) {
      switch (a.kind) {
        case ArgRef::kInput:
        case ArgRef::kOutput: {
          llvm::Value* table = a.kind == ArgRef::kInput ? inputs : outputs;
          args.push_back(b.CreateLoad(ptr, b.CreateConstGEP1_64(ptr, table, a.value)));
          break;
        }
        case ArgRef::kWorkspace:
          args.push_back(b.CreateConstGEP1_64(b.getInt8Ty(), workspace, a.value));
          break;
        case ArgRef::kWorkspaceAt:
          args.push_back(workspace_at(a.value));
          break;
        case ArgRef::kSymbol:  // a counting kernel writes the size; later calls load it
          INGOT_ICHECK(symbols != nullptr, "a data-dependent size without a symbols table");
          args.push_back(b.CreateConstGEP1_64(b.getInt64Ty(), symbols, a.value));
          break;
        case ArgRef::kConstant:
          // A module whose only constants are empty tensors has no blob: nothing is read.
          args.push_back(constants != nullptr
                             ? b.CreateConstGEP1_64(b.getInt8Ty(), constants, a.value)
                             : static_cast<llvm::Value*>(llvm::ConstantPointerNull::get(ptr)));
          break;
      }
    }
    for (const tir::Var& v : mod.kernels[call.kernel].shape_vars) {
      llvm::Value* slot = b.CreateConstGEP1_64(b.getInt64Ty(), symbols, symbol_index(mod, v));
      args.push_back(b.CreateLoad(b.getInt64Ty(), slot, v.name()));
    }
    args.push_back(services);
    hook(5, call.kernel);
    llvm::Value* status = b.CreateCall(kernels[call.kernel], args);
    hook(6, call.kernel);
    auto* fail_bb = llvm::BasicBlock::Create(ctx, "fail", fn);
    auto* ok_bb = llvm::BasicBlock::Create(ctx, "ok", fn);
    b.CreateCondBr(b.CreateICmpNE(status, b.getInt32(0)), fail_bb, ok_bb);
    b.SetInsertPoint(fail_bb);
    b.CreateRet(status);
    b.SetInsertPoint(ok_bb);
  }
  b.CreateRet(b.getInt32(0));
  return fn;
}

// The artifact's ISA requirement: the checkable features its code may use, comma-separated.
std::string isa_requirement(const Target& target) {
  std::string s;
  for (const std::string& f : target.isa_features) s += (s.empty() ? "" : ",") + f;
  return s;
}

// An empty module for the target, its record layout checked against abi.h.
std::string module_name(const std::string& model_name) {
  return model_name.empty() ? std::string("model") : model_name;
}

std::unique_ptr<llvm::Module> new_module(const std::string& name, const Target& target,
                                         llvm::TargetMachine& tm, llvm::LLVMContext& ctx) {
  auto m = std::make_unique<llvm::Module>(name, ctx);
  m->setTargetTriple(target.triple);
  m->setDataLayout(tm.createDataLayout());
  return m;
}

// Raw bytes as a private global (8-aligned), or null when empty.
llvm::Constant* binary_blob(RecordBuilder& r, const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) return llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(r.ptr()));
  llvm::StringRef raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto* g = llvm::cast<llvm::GlobalVariable>(r.private_global(
      llvm::ConstantDataArray::getRaw(raw, bytes.size(), r.i8()), "device.binary"));
  g->setAlignment(llvm::Align(8));
  return g;
}

// The device code record of a device artifact.
llvm::Constant* device_code_record(RecordBuilder& r, const DeviceCode& dc,
                                   llvm::GlobalVariable* constants) {
  std::vector<llvm::Constant*> names, launches, args;
  for (const std::string& f : dc.functions) names.push_back(r.str(f));
  auto dims = [&](const std::array<uint32_t, 3>& d) {
    auto* t = llvm::ArrayType::get(r.i32(), 3);
    return llvm::ConstantArray::get(
        t, {r.ci(r.i32(), d[0]), r.ci(r.i32(), d[1]), r.ci(r.i32(), d[2])});
  };
  for (const DeviceLaunch& l : dc.launches) {
    launches.push_back(llvm::ConstantStruct::get(
        r.device_launch_ty(),
        {r.ci(r.i32(), uint64_t(l.function)), r.ci(r.i32(), uint64_t(l.kernel)), dims(l.grid),
         dims(l.block), r.ci(r.i32(), args.size()), r.ci(r.i32(), l.args.size())}));
    for (const ArgRef& a : l.args)
      args.push_back(llvm::ConstantStruct::get(
          r.device_arg_ty(),
          {r.ci(r.i32(), uint64_t(a.kind)), r.ci(r.i32(), 0), r.ci(r.i64(), uint64_t(a.value))}));
  }
  llvm::Constant* blob = constants;
  if (blob == nullptr)
    blob = llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(r.ptr()));
  auto* record = llvm::ConstantStruct::get(
      r.device_code_ty(),
      {r.ci(r.i32(), uint64_t(dc.format)), r.ci(r.i32(), dc.functions.size()), r.str(dc.code),
       r.ci(r.i64(), dc.code.size()), r.array(r.ptr(), names, "device.functions"),
       r.ci(r.i32(), dc.launches.size()), r.ci(r.i32(), args.size()),
       r.array(r.device_launch_ty(), launches, "device.launches"),
       r.array(r.device_arg_ty(), args, "device.args"), blob, binary_blob(r, dc.binary),
       r.ci(r.i64(), dc.binary.size())});
  return r.private_global(record, "device.code");
}

// The exported record: `entry` (CPU artifacts) or `device_code` (device artifacts), the model's
// interface and kernels, `target_string` and the ISA requirement `isa`.
void build_record(llvm::Module& m, RecordBuilder& r, const tir::IRModule& mod,
                  const std::string& target_string, uint64_t device_type, llvm::Constant* entry,
                  const std::string& isa, llvm::Constant* device_code, llvm::Constant* shape_fn,
                  llvm::Constant* workspace_fn, llvm::Constant* value_fn) {
  std::vector<llvm::Constant*> kinfo;
  for (const auto& k : mod.kernels)
    kinfo.push_back(llvm::ConstantStruct::get(
        r.kernel_ty(), {r.str(k.name), llvm::ConstantFP::get(r.f64(), k.flops),
                        llvm::ConstantFP::get(r.f64(), k.bytes_moved),
                        r.str(fmt::format("{}", fmt::join(k.source_ops, "+")))}));
  auto* record =
      llvm::ConstantStruct::get(r.artifact_ty(), {r.ci(r.i64(), INGOT_ARTIFACT_MAGIC),
                                                  r.ci(r.i32(), INGOT_ABI_VERSION),
                                                  r.ci(r.i32(), sizeof(IngotArtifact)),
                                                  r.str(mod.model_name),
                                                  r.str(target_string),
                                                  r.ci(r.i32(), device_type),
                                                  r.ci(r.i32(), mod.inputs.size()),
                                                  r.tensors(mod.inputs, "inputs"),
                                                  r.ci(r.i32(), mod.outputs.size()),
                                                  r.tensors(mod.outputs, "outputs"),
                                                  r.ci(r.i64(), mod.workspace_bytes),
                                                  r.ci(r.i64(), mod.constants.size()),
                                                  entry,
                                                  r.ci(r.i32(), mod.kernels.size()),
                                                  r.array(r.kernel_ty(), kinfo, "kernels"),
                                                  r.str(isa),
                                                  device_code,
                                                  r.ci(r.i32(), mod.symbols.size()),
                                                  r.symbols(mod.symbols),
                                                  shape_fn,
                                                  workspace_fn,
                                                  value_fn,
                                                  r.ci(r.i32(), mod.states.size()),
                                                  r.states(mod.states)});
  auto* g = new llvm::GlobalVariable(m, r.artifact_ty(), true, llvm::GlobalValue::ExternalLinkage,
                                     record, INGOT_ARTIFACT_SYMBOL);
  g->setAlignment(llvm::Align(8));
  g->setVisibility(llvm::GlobalValue::DefaultVisibility);
}

// The record's layout is checked against this compiler's abi.h structs where the target has the
// same C layout (LP64 ELF: x86-64 and AArch64 Linux agree on every field of abi.h).
void check_layout_for(llvm::Module& m, RecordBuilder& r, const Target& target) {
  llvm::Triple::ArchType arch = llvm::Triple(target.triple).getArch();
  if (arch == llvm::Triple::x86_64 || arch == llvm::Triple::aarch64) check_abi_layout(m, r);
}

// The entry function (CPU artifacts) or the device code (`device`: device artifacts, whose
// record names `target_string`) and the exported record.
void build_entry_and_record(llvm::Module& m, const tir::IRModule& mod, const Target& target,
                            const std::vector<llvm::Function*>& kernels,
                            llvm::GlobalVariable* constants, const DeviceCode* device = nullptr,
                            const std::string& target_string = "") {
  RecordBuilder r(m);
  check_layout_for(m, r, target);
  auto* null = llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(r.ptr()));
  if (device != nullptr) {
    INGOT_ICHECK(mod.symbols.empty(), "a device artifact with symbolic dims");
    build_record(m, r, mod, target_string, uint64_t(device->device_type), null, "",
                 device_code_record(r, *device, constants), null, null, null);
  } else {
    build_record(m, r, mod, target.str(), 1, build_entry(m, mod, target, kernels, constants),
                 isa_requirement(target), null, build_shape_fn(m, mod, target),
                 build_workspace_fn(m, mod, target), build_value_fn(m, mod, target));
  }
}

// The entry of a C artifact: calls `run_symbol` (the C entry's ingot_<m>_run_arrays, hidden) with
// the tensors, the workspace and the runtime's profiling hooks.
llvm::Function* build_c_entry(llvm::Module& m, const std::string& run_symbol) {
  llvm::LLVMContext& ctx = m.getContext();
  auto* ptr = llvm::PointerType::get(ctx, 0);
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* run_ty = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr, ptr}, false);
  auto* run = llvm::Function::Create(run_ty, llvm::Function::ExternalLinkage, run_symbol, m);
  run->setVisibility(llvm::GlobalValue::HiddenVisibility);
  auto* fty = llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, ptr}, false);  // IngotEntryFn
  auto* fn = llvm::Function::Create(fty, llvm::Function::InternalLinkage, "ingot_entry", m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  auto* st = KernelLowering::services_type(ctx);
  llvm::Value* services = fn->getArg(0);
  llvm::Value* sctx = b.CreateLoad(ptr, b.CreateStructGEP(st, services, 2), "ctx");
  llvm::Value* begin = b.CreateLoad(ptr, b.CreateStructGEP(st, services, 5), "begin");
  llvm::Value* end = b.CreateLoad(ptr, b.CreateStructGEP(st, services, 6), "end");
  b.CreateRet(b.CreateCall(run, {fn->getArg(1), fn->getArg(2), fn->getArg(3), begin, end, sctx}));
  return fn;
}

void add_target_attributes(llvm::Module& m, const Target& target) {
  // Per-function target attributes, so the vectorizer sees the real vector width.
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", target.mcpu);
    if (!target.mattr.empty()) f.addFnAttr("target-features", target.mattr);
    f.addFnAttr("prefer-vector-width", std::to_string(target.vector_bits));
  }
}

}  // namespace

std::unique_ptr<llvm::Module> build_llvm_module(const tir::IRModule& mod,
                                                const std::vector<tir::PrimFunc>& kernel_funcs,
                                                const Target& target, llvm::TargetMachine& tm,
                                                llvm::LLVMContext& ctx) {
  INGOT_ICHECK(kernel_funcs.size() == mod.kernels.size(), "{} kernels for a module of {}",
               kernel_funcs.size(), mod.kernels.size());
  std::unique_ptr<llvm::Module> m = new_module(module_name(mod.model_name), target, tm, ctx);

  // Constants: one 64-byte aligned internal byte array.
  llvm::GlobalVariable* constants = nullptr;
  if (!mod.constants.empty()) {
    llvm::StringRef raw(reinterpret_cast<const char*>(mod.constants.data()), mod.constants.size());
    auto* init =
        llvm::ConstantDataArray::getRaw(raw, mod.constants.size(), llvm::Type::getInt8Ty(ctx));
    constants = new llvm::GlobalVariable(*m, init->getType(), true,
                                         llvm::GlobalValue::InternalLinkage, init, "constants");
    constants->setAlignment(llvm::Align(64));
  }

  // Kernels.
  std::vector<llvm::Function*> kernels;
  auto noalias = noalias_params(mod);
  KernelLowering lowering(*m, target);
  for (size_t i = 0; i < kernel_funcs.size(); ++i)
    kernels.push_back(lowering.lower(kernel_funcs[i], noalias[i]));
  build_entry_and_record(*m, mod, target, kernels, constants);
  add_target_attributes(*m, target);
  return m;
}

std::unique_ptr<llvm::Module> build_kernel_module(const tir::PrimFunc& func,
                                                  const std::vector<bool>& noalias,
                                                  const std::string& model_name,
                                                  const Target& target, llvm::TargetMachine& tm,
                                                  llvm::LLVMContext& ctx, std::string& symbol) {
  std::unique_ptr<llvm::Module> m =
      new_module(module_name(model_name) + "." + func.name, target, tm, ctx);
  KernelLowering lowering(*m, target);
  llvm::Function* fn = lowering.lower(func, noalias);
  fn->setLinkage(llvm::GlobalValue::ExternalLinkage);
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  symbol = fn->getName().str();
  add_target_attributes(*m, target);
  return m;
}

namespace {

// The constant blob as the hidden external symbol kConstantsSymbol (a data object defines it), or
// null when the module has none.
llvm::GlobalVariable* declare_constants(llvm::Module& m, const tir::IRModule& mod) {
  if (mod.constants.empty()) return nullptr;
  auto* type = llvm::ArrayType::get(llvm::Type::getInt8Ty(m.getContext()), mod.constants.size());
  auto* constants = new llvm::GlobalVariable(m, type, true, llvm::GlobalValue::ExternalLinkage,
                                             nullptr, kConstantsSymbol);
  constants->setVisibility(llvm::GlobalValue::HiddenVisibility);
  constants->setAlignment(llvm::Align(64));
  return constants;
}

}  // namespace

std::unique_ptr<llvm::Module> build_device_record_module(
    const tir::IRModule& mod, const DeviceCode& device, const std::string& target_string,
    const Target& host, llvm::TargetMachine& tm, llvm::LLVMContext& ctx) {
  std::unique_ptr<llvm::Module> m = new_module(module_name(mod.model_name), host, tm, ctx);
  llvm::GlobalVariable* constants = declare_constants(*m, mod);
  build_entry_and_record(*m, mod, host, {}, constants, &device, target_string);
  return m;
}

std::unique_ptr<llvm::Module> build_c_record_module(const tir::IRModule& mod,
                                                    const std::string& run_symbol,
                                                    const std::string& target_string,
                                                    const Target& host, llvm::TargetMachine& tm,
                                                    llvm::LLVMContext& ctx) {
  std::unique_ptr<llvm::Module> m = new_module(module_name(mod.model_name), host, tm, ctx);
  RecordBuilder r(*m);
  check_layout_for(*m, r, host);
  auto* null = llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(r.ptr()));
  INGOT_ICHECK(mod.symbols.empty(), "a C artifact with symbolic dims");
  build_record(*m, r, mod, target_string, 1, build_c_entry(*m, run_symbol), "", null, null, null,
               null);
  return m;
}

std::unique_ptr<llvm::Module> build_entry_module(const tir::IRModule& mod,
                                                 const std::vector<std::string>& symbols,
                                                 const Target& target, llvm::TargetMachine& tm,
                                                 llvm::LLVMContext& ctx) {
  INGOT_ICHECK(symbols.size() == mod.kernels.size(), "{} kernel symbols for {} kernels",
               symbols.size(), mod.kernels.size());
  std::unique_ptr<llvm::Module> m = new_module(module_name(mod.model_name), target, tm, ctx);
  llvm::GlobalVariable* constants = declare_constants(*m, mod);
  std::vector<llvm::Function*> kernels;
  for (size_t k = 0; k < symbols.size(); ++k) {
    INGOT_ICHECK(!m->getNamedValue(symbols[k]), "kernel symbol '{}' defined twice", symbols[k]);
    auto* fn = llvm::Function::Create(kernel_function_type(mod.kernels[k], ctx),
                                      llvm::GlobalValue::ExternalLinkage, symbols[k], *m);
    fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    kernels.push_back(fn);
  }
  build_entry_and_record(*m, mod, target, kernels, constants);
  add_target_attributes(*m, target);
  return m;
}

}  // namespace ingot::codegen
