// Test helper: compiles an ONNX file with the driver and runs it through the runtime C API.
#pragma once

#include <ingot/runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "driver/compile.h"

namespace ingot::testing {

// A fresh folder per test and process (ctest may run tests of several builds at once), removed
// when the process exits.
inline std::filesystem::path temp_dir(const std::string& name) {
  static std::vector<std::filesystem::path> made;
  if (made.empty()) {
    std::atexit([] {
      std::error_code ec;
      for (const auto& d : made) std::filesystem::remove_all(d, ec);
    });
  }
  auto dir = std::filesystem::temp_directory_path() /
             ("ingot_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  made.push_back(dir);
  return dir;
}

// The standard output of a shell command (append " 2>&1" for its errors too).
inline std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// n floats drawn uniformly from [-1, 1) by a generator seeded with `seed`.
// Whether this host has every ISA feature `target`'s code requires (so its artifacts load).
inline bool host_runs(const std::string& target) {
  codegen::Target t = codegen::Target::parse(target), host = codegen::Target::host();
  for (const std::string& f : t.isa_features)
    if (std::find(host.isa_features.begin(), host.isa_features.end(), f) == host.isa_features.end())
      return false;
  return true;
}

inline std::vector<float> random_vector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// A float32 CPU DLTensor over `data` with `shape` (both must outlive its use).
inline DLTensor f32_tensor(std::vector<float>& data, std::vector<int64_t>& shape) {
  DLTensor t{};
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = int32_t(shape.size());
  t.dtype = {kDLFloat, 32, 1};
  t.shape = shape.data();
  return t;
}

class CompiledModel {
 public:
  CompiledModel(const std::string& onnx_path, const std::string& so_path,
                const driver::CompileOptions& opts = {}) {
    std::ostringstream dump;
    driver::compile_model(onnx_path, so_path, opts, dump);
    if (ingot_model_load(so_path.c_str(), &model_) != INGOT_OK)
      throw std::runtime_error(ingot_last_error());
    if (ingot_session_create(model_, &session_) != INGOT_OK)
      throw std::runtime_error(ingot_last_error());
  }
  ~CompiledModel() {
    ingot_session_free(session_);
    ingot_model_free(model_);
  }
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  template <typename T>
  void set_input(const std::string& name, const std::vector<T>& data) {
    int32_t idx = ingot_model_find_input(model_, name.c_str());
    if (idx < 0) throw std::runtime_error("no input " + name);
    if (ingot_session_set_input_copy(session_, idx, data.data(), data.size() * sizeof(T)) !=
        INGOT_OK)
      throw std::runtime_error(ingot_last_error());
  }
  void run() {
    if (ingot_session_run(session_) != INGOT_OK) throw std::runtime_error(ingot_last_error());
  }
  std::vector<float> output(int index, std::vector<int64_t>* shape = nullptr) const {
    DLTensor t;
    if (ingot_session_output(session_, index, &t) != INGOT_OK)
      throw std::runtime_error(ingot_last_error());
    int64_t n = 1;
    if (shape) shape->assign(t.shape, t.shape + t.ndim);
    for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
    const float* p = static_cast<const float*>(t.data);
    return std::vector<float>(p, p + n);
  }
  const IngotModel* model() const { return model_; }

 private:
  IngotModel* model_ = nullptr;
  IngotSession* session_ = nullptr;
};

}  // namespace ingot::testing
