// Test helpers: wrap kernels in an IRModule, build it into a .so in a temp dir, load it through
// the runtime's loader and call its entry with serial or threaded runtime services.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "codegen/build.h"
#include "codegen/target.h"
#include "ingot/abi.h"
#include "ingot/runtime.h"
#include "tir/module.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::codegen::test {

// n floats in [-1, 1) from a fixed-seed generator.
inline std::vector<float> random_floats(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(rng);
  return v;
}

// A fresh directory under /tmp, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ingot-cg-XXXXXX").string();
    path_ = mkdtemp(t.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct ServiceStats {
  std::atomic<int64_t> launches{0};
  std::atomic<int64_t> tasks{0};
  std::vector<int> begun, ended;
};

inline int32_t serial_parallel_for(void* ctx, IngotParallelBody body, void* closure, int64_t n) {
  auto* s = static_cast<ServiceStats*>(ctx);
  s->launches++;
  for (int64_t t = 0; t < n; ++t) {
    s->tasks++;
    if (int32_t st = body(t, n, closure)) return st;
  }
  return 0;
}

inline int32_t threaded_parallel_for(void* ctx, IngotParallelBody body, void* closure, int64_t n) {
  auto* s = static_cast<ServiceStats*>(ctx);
  s->launches++;
  std::atomic<int32_t> status{0};
  std::vector<std::thread> threads;
  for (int64_t t = 0; t < n; ++t) {
    threads.emplace_back([&, t] {
      s->tasks++;
      if (int32_t st = body(t, n, closure)) status = st;
    });
  }
  for (auto& th : threads) th.join();
  return status;
}

inline void record_begin(void* ctx, int32_t k) {
  static_cast<ServiceStats*>(ctx)->begun.push_back(k);
}
inline void record_end(void* ctx, int32_t k) {
  static_cast<ServiceStats*>(ctx)->ended.push_back(k);
}

inline IngotServices make_services(ServiceStats* stats, bool threaded = false, bool hooks = false) {
  IngotServices s{};
  s.abi_version = INGOT_ABI_VERSION;
  s.struct_size = sizeof(IngotServices);
  s.ctx = stats;
  s.parallel_for = threaded ? threaded_parallel_for : serial_parallel_for;
  s.set_error = nullptr;
  s.kernel_begin = hooks ? record_begin : nullptr;
  s.kernel_end = hooks ? record_end : nullptr;
  return s;
}

// Buffer with a constant shape (avoids the braced-list ambiguity of Buffer::make).
inline tir::Buffer make_buffer(const std::string& name, tir::DataType dtype,
                               const std::vector<int64_t>& shape,
                               tir::StorageScope scope = tir::StorageScope::kGlobal) {
  return tir::Buffer::make(name, dtype, shape, scope);
}

inline tir::TensorDesc desc_of(const tir::Buffer& b) {
  tir::TensorDesc d;
  d.name = b->name;
  d.dtype = b->dtype;
  for (const tir::Expr& e : b->shape) {
    int64_t v = 0;
    tir::is_const_int(e, &v);
    d.shape.push_back(v);
    d.dim_names.push_back("");
  }
  return d;
}

// One kernel: its first num_inputs params are model inputs, the rest outputs.
inline tir::IRModule single_kernel_module(const std::string& name,
                                          const std::vector<tir::Buffer>& params, tir::Stmt body,
                                          int num_inputs) {
  tir::IRModule m;
  m.model_name = name;
  m.kernels.push_back(tir::PrimFunc{name + "_kernel", params, std::move(body), 0, 0});
  tir::KernelCall call{0, {}};
  for (size_t i = 0; i < params.size(); ++i) {
    bool in = int(i) < num_inputs;
    (in ? m.inputs : m.outputs).push_back(desc_of(params[i]));
    call.args.push_back({in ? tir::ArgRef::kInput : tir::ArgRef::kOutput,
                         in ? int64_t(i) : int64_t(i) - num_inputs});
  }
  m.entry.push_back(call);
  return m;
}

// A micro-kernel's implementation (a tensor intrinsic's impl: inputs A and B, output C) as a
// one-kernel module, to run or emit on its own.
inline tir::IRModule tile_impl_module(const tir::PrimFunc& impl) {
  return single_kernel_module("tile", impl.params, impl.body, 2);
}

// A built and loaded artifact; unloaded (and its file deleted) on destruction.
class LoadedArtifact {
 public:
  LoadedArtifact(const tir::IRModule& m, const Target& target = Target::host()) {
    path_ = dir_.file(m.model_name + ".so");
    build_shared_library(m, target, path_);
    // Through the runtime's loader, as users load artifacts: it checks the record and the CPU
    // features the code uses, and asks the OS for the AMX tile state where the code uses tiles.
    if (ingot_model_load(path_.c_str(), &model_) != INGOT_OK)
      throw std::runtime_error(ingot_last_error());
    art_ = ingot_model_artifact(model_);
  }
  ~LoadedArtifact() { ingot_model_free(model_); }
  LoadedArtifact(const LoadedArtifact&) = delete;
  LoadedArtifact& operator=(const LoadedArtifact&) = delete;
  const IngotArtifact* operator->() const { return art_; }
  const IngotArtifact& record() const { return *art_; }
  const std::string& path() const { return path_; }

  // Runs the entry with serial services (or threaded ones) and the symbols' values (if any);
  // returns its status.
  int32_t run(std::vector<void*> inputs, std::vector<void*> outputs, void* workspace = nullptr,
              bool threaded = false, ServiceStats* stats = nullptr,
              const int64_t* symbols_ = nullptr) const {
    ServiceStats local;
    IngotServices s = make_services(stats ? stats : &local, threaded);
    // (The entry writes data-dependent sizes into its symbols: a copy of the caller's.)
    std::vector<int64_t> symbols;
    if (symbols_ != nullptr) symbols.assign(symbols_, symbols_ + art_->num_symbols);
    return art_->entry(&s, inputs.data(), outputs.data(), workspace,
                       symbols_ != nullptr ? symbols.data() : nullptr);
  }

 private:
  TempDir dir_;
  std::string path_;
  IngotModel* model_ = nullptr;
  const IngotArtifact* art_ = nullptr;
};

}  // namespace ingot::codegen::test
