// Graph-level tensor types: dtype names and sizes, TensorType helpers.
#include "graph/types.h"

#include "support/error.h"

namespace ingot::graph {

const char* dtype_name(DType d) {
  switch (d) {
    case DType::kF32:
      return "float32";
    case DType::kF16:
      return "float16";
    case DType::kBF16:
      return "bfloat16";
    case DType::kF64:
      return "float64";
    case DType::kI8:
      return "int8";
    case DType::kI16:
      return "int16";
    case DType::kI32:
      return "int32";
    case DType::kI64:
      return "int64";
    case DType::kU8:
      return "uint8";
    case DType::kU16:
      return "uint16";
    case DType::kU32:
      return "uint32";
    case DType::kU64:
      return "uint64";
    case DType::kBool:
      return "bool";
  }
  fail_internal("dtype_name: bad DType {}", int(d));
}

int dtype_bytes(DType d) {
  switch (d) {
    case DType::kF64:
    case DType::kI64:
    case DType::kU64:
      return 8;
    case DType::kF32:
    case DType::kI32:
    case DType::kU32:
      return 4;
    case DType::kF16:
    case DType::kBF16:
    case DType::kI16:
    case DType::kU16:
      return 2;
    case DType::kI8:
    case DType::kU8:
    case DType::kBool:
      return 1;
  }
  fail_internal("dtype_bytes: bad DType {}", int(d));
}

Dim Dim::of(const SymExpr& e) {
  if (auto c = e.as_constant()) {
    if (*c < 0) fail_user("a dimension evaluates to {} (negative)", *c);
    return fixed(*c);
  }
  return Dim{-1, e};
}

bool TensorType::is_static() const {
  for (const Dim& d : shape)
    if (!d.is_static()) return false;
  return true;
}

std::vector<int64_t> TensorType::static_shape() const {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const Dim& d : shape) {
    INGOT_ICHECK(d.is_static(), "static_shape() of {} with symbolic dim '{}'", str(), d.str());
    out.push_back(d.value);
  }
  return out;
}

int64_t TensorType::num_elements() const {
  int64_t n = 1;
  for (int64_t v : static_shape()) n *= v;
  return n;
}

std::string TensorType::str() const {
  std::string s = dtype_name(dtype);
  s += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += shape[i].str();
  }
  s += ']';
  return s;
}

}  // namespace ingot::graph
