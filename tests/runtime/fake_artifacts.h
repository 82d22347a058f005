// Paths of the hand-written test artifacts and small helpers for building DLTensors over
// std::vector data in runtime tests.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ingot::testing {

inline std::string fake_artifact(const std::string& name) {
  return std::string(INGOT_FAKE_ARTIFACT_DIR) + "/" + name + ".so";
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
