// Constant tensor data: eager or lazily loaded bytes, and element access as double / int64.
#include "graph/tensor.h"

#include <cmath>
#include <cstring>

#include "support/bfloat16.h"
#include "support/error.h"

namespace ingot::graph {

namespace {

double half_to_double(uint16_t h) {
  int sign = (h >> 15) & 1;
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(double(mant), -24);  // subnormal (or zero)
  } else if (exp == 31) {
    v = mant ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(double(mant | 0x400), exp - 25);
  }
  return sign ? -v : v;
}

template <typename T>
T load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * int64_t(sizeof(T)), sizeof(T));
  return v;
}

}  // namespace

Tensor::Tensor(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(std::move(bytes)) {
  INGOT_ICHECK(int64_t(bytes_.size()) == nbytes(), "tensor of {} elements of {} given {} bytes",
               num_elements(), dtype_name(dtype_), bytes_.size());
  std::call_once(once_, [] {});
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape, Loader load)
    : dtype_(dtype), shape_(std::move(shape)), loader_(std::move(load)) {}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

const uint8_t* Tensor::data() const {
  std::call_once(once_, [this] {
    bytes_ = loader_();
    loader_ = nullptr;
    if (int64_t(bytes_.size()) != nbytes())
      fail_user("external tensor data has {} bytes, expected {} for {}", bytes_.size(), nbytes(),
                type().str());
  });
  return bytes_.data();
}

double Tensor::get_f64(int64_t i) const {
  INGOT_ICHECK(i >= 0 && i < num_elements(), "tensor index {} out of range {}", i, num_elements());
  const uint8_t* p = data();
  switch (dtype_) {
    case DType::kF32:
      return load<float>(p, i);
    case DType::kF16:
      return half_to_double(load<uint16_t>(p, i));
    case DType::kBF16:
      return bfloat16_bits_to_float(load<uint16_t>(p, i));
    case DType::kF64:
      return load<double>(p, i);
    case DType::kI8:
      return load<int8_t>(p, i);
    case DType::kI16:
      return load<int16_t>(p, i);
    case DType::kI32:
      return load<int32_t>(p, i);
    case DType::kI64:
      return double(load<int64_t>(p, i));
    case DType::kU8:
      return load<uint8_t>(p, i);
    case DType::kU16:
      return load<uint16_t>(p, i);
    case DType::kU32:
      return load<uint32_t>(p, i);
    case DType::kU64:
      return double(load<uint64_t>(p, i));
    case DType::kBool:
      return load<uint8_t>(p, i) ? 1.0 : 0.0;
  }
  fail_internal("get_f64: bad DType {}", int(dtype_));
}

int64_t Tensor::get_i64(int64_t i) const {
  INGOT_ICHECK(i >= 0 && i < num_elements(), "tensor index {} out of range {}", i, num_elements());
  const uint8_t* p = data();
  switch (dtype_) {
    case DType::kI64:
      return load<int64_t>(p, i);
    case DType::kI32:
      return load<int32_t>(p, i);
    case DType::kI16:
      return load<int16_t>(p, i);
    case DType::kI8:
      return load<int8_t>(p, i);
    case DType::kU8:
      return load<uint8_t>(p, i);
    case DType::kU16:
      return load<uint16_t>(p, i);
    case DType::kU32:
      return load<uint32_t>(p, i);
    case DType::kU64:
      return int64_t(load<uint64_t>(p, i));  // two's complement: the bits of the value
    case DType::kBool:
      return load<uint8_t>(p, i) ? 1 : 0;
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
    case DType::kF64:
      return int64_t(get_f64(i));  // truncation toward zero, like a C cast
  }
  fail_internal("get_i64: bad DType {}", int(dtype_));
}

TensorType Tensor::type() const {
  TensorType t;
  t.dtype = dtype_;
  for (int64_t d : shape_) t.shape.push_back(Dim::fixed(d));
  return t;
}

TensorPtr tensor_from_bytes(DType dtype, std::vector<int64_t> shape, const void* data,
                            size_t bytes) {
  std::vector<uint8_t> b(bytes);
  if (bytes > 0) std::memcpy(b.data(), data, bytes);
  return std::make_shared<Tensor>(dtype, std::move(shape), std::move(b));
}

}  // namespace ingot::graph
