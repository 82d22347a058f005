// Graph-level tensor types: element dtype, dimensions (static or symbolic) and TensorType.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/sym_expr.h"

namespace ingot::graph {

enum class DType : uint8_t {
  kF32,
  kF16,
  kF64,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kBool,
  kU16,
  kU32,
  kU64,
  kBF16  // bfloat16: the upper 16 bits of a float32
};
const char* dtype_name(DType d);  // "float32", "int64", "bool", ...
int dtype_bytes(DType d);         // bool: 1
// Whether `code` (a DType stored as an attribute: Cast's `to`, EyeLike's `dtype`) names a DType.
inline bool is_dtype_code(int64_t code) {
  return code >= 0 && code <= int64_t(DType::kBF16);  // (kBF16 is the last)
}
// float32, float16, bfloat16 or float64.
inline bool is_float_dtype(DType d) {
  return d == DType::kF32 || d == DType::kF16 || d == DType::kBF16 || d == DType::kF64;
}

// A dimension: a constant, or a symbolic expression over named symbols ("N", "seq",
// "past+seq"; graph/sym_expr.h) not yet bound.
struct Dim {
  int64_t value = -1;  // >= 0 when static
  SymExpr expr;        // when symbolic: never a constant

  static Dim fixed(int64_t v) { return Dim{v, {}}; }
  static Dim named(const std::string& s) { return Dim{-1, SymExpr::symbol(s)}; }
  // A constant expression becomes a static dim (UserError when negative).
  static Dim of(const SymExpr& e);
  bool is_static() const { return value >= 0; }
  // The dim as an expression (a constant when static).
  SymExpr sym() const { return is_static() ? SymExpr(value) : expr; }
  // The symbol's name when the dim is exactly one symbol, else "".
  std::string symbol_name() const { return is_static() ? "" : expr.symbol_name(); }
  std::string str() const { return is_static() ? std::to_string(value) : expr.str(); }
  friend bool operator==(const Dim& a, const Dim& b) {
    return a.value == b.value && a.expr == b.expr;
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
