// Paths of the hand-written test artifacts, load-failure and scratch-file helpers, and DLTensors
// over std::vector data, for the runtime tests.
#pragma once

#include <dlpack/dlpack.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ingot/runtime.h"

namespace ingot::testing {

inline std::string fake_artifact(const std::string& name) {
  return std::string(INGOT_FAKE_ARTIFACT_DIR) + "/" + name + ".so";
}

// Loads `path`, expecting failure; returns the error message.
inline std::string load_error(const std::string& path) {
  IngotModel* model = reinterpret_cast<IngotModel*>(0x1);
  ingot_status st = ingot_model_load(path.c_str(), &model);
  EXPECT_EQ(st, INGOT_ERR_LOAD) << path;
  EXPECT_EQ(model, nullptr);
  return ingot_last_error();
}

// A path in this process's scratch folder.
inline std::filesystem::path temp_file(const std::string& name) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ingot_rt_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

// A CPU DLTensor viewing `data` with `shape` (the vectors must outlive the tensor).
template <typename T>
DLTensor make_tensor(std::vector<T>& data, std::vector<int64_t>& shape, uint8_t code) {
  DLTensor t{};
  t.data = data.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(shape.size());
  t.dtype = {code, static_cast<uint8_t>(sizeof(T) * 8), 1};
  t.shape = shape.data();
  return t;
}

}  // namespace ingot::testing
