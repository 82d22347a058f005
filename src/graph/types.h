// Graph-level tensor types: element dtype, dimensions (static or symbolic) and TensorType.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ingot::graph {

enum class DType : uint8_t { kF32, kF16, kF64, kI8, kI16, kI32, kI64, kU8, kBool };
const char* dtype_name(DType d);  // "float32", "int64", "bool", ...
int dtype_bytes(DType d);         // bool: 1

// A dimension: a constant, or a named symbol ("N", "seq") not yet bound.
struct Dim {
  int64_t value = -1;  // >= 0 when static
  std::string symbol;  // non-empty when symbolic

  static Dim fixed(int64_t v) { return Dim{v, ""}; }
  static Dim named(std::string s) { return Dim{-1, std::move(s)}; }
  bool is_static() const { return value >= 0; }
  std::string str() const { return is_static() ? std::to_string(value) : symbol; }
  friend bool operator==(const Dim& a, const Dim& b) {
    return a.value == b.value && a.symbol == b.symbol;
  }
};

struct TensorType {
  DType dtype = DType::kF32;
  std::vector<Dim> shape;

  int rank() const { return int(shape.size()); }
  bool is_static() const;
  // Static shape; throws InternalError when a dim is symbolic.
  std::vector<int64_t> static_shape() const;
  int64_t num_elements() const;  // static only
  std::string str() const;       // "float32[N,3,224,224]"
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
};

}  // namespace ingot::graph
