// Constant tensor data: shared, immutable bytes with a dtype and static shape. Data from ONNX
// external files is loaded lazily on first access.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "graph/types.h"

namespace ingot::graph {

class Tensor {
 public:
  using Loader = std::function<std::vector<uint8_t>()>;

  Tensor(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);
  // Lazy: `load` is called once, on the first data() call, and must return nbytes() bytes.
  Tensor(DType dtype, std::vector<int64_t> shape, Loader load);

  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const;
  int64_t nbytes() const { return num_elements() * dtype_bytes(dtype_); }
  const uint8_t* data() const;  // loads lazily; throws UserError if the external file is bad
  template <typename T>
  const T* data_as() const {
    return reinterpret_cast<const T*>(data());
  }
  // Element i converted to double / int64 (for shape arithmetic and small constants).
  double get_f64(int64_t i) const;
  int64_t get_i64(int64_t i) const;
  TensorType type() const;

 private:
  DType dtype_;
  std::vector<int64_t> shape_;
  mutable std::vector<uint8_t> bytes_;
  mutable Loader loader_;
  mutable std::once_flag once_;
};

using TensorPtr = std::shared_ptr<const Tensor>;

// A tensor holding a copy of `bytes` bytes at `data` (row-major elements of `dtype`).
TensorPtr tensor_from_bytes(DType dtype, std::vector<int64_t> shape, const void* data,
                            size_t bytes);

}  // namespace ingot::graph
