// Tests for graph types, constant tensors (every dtype, lazy loading), attributes and op names.
#include <gtest/gtest.h>

#include "graph/attrs.h"
#include "graph/tensor.h"
#include "graph/types.h"
#include "graph_test_util.h"
#include "ops/op_kind.h"
#include "support/error.h"

namespace ingot::graph {
namespace {

using testing::F32;

template <typename T>
std::vector<uint8_t> bytes_of(std::vector<T> v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(Types, NamesAndSizes) {
  EXPECT_STREQ(dtype_name(DType::kF32), "float32");
  EXPECT_STREQ(dtype_name(DType::kF16), "float16");
  EXPECT_STREQ(dtype_name(DType::kI64), "int64");
  EXPECT_STREQ(dtype_name(DType::kBool), "bool");
  EXPECT_EQ(dtype_bytes(DType::kF64), 8);
  EXPECT_EQ(dtype_bytes(DType::kF16), 2);
  EXPECT_EQ(dtype_bytes(DType::kBool), 1);
  EXPECT_EQ(dtype_bytes(DType::kI32), 4);
}

TEST(Types, TensorTypeHelpers) {
  TensorType t = F32({"N", 3, 224, 224});
  EXPECT_EQ(t.str(), "float32[N,3,224,224]");
  EXPECT_FALSE(t.is_static());
  EXPECT_THROW(t.static_shape(), InternalError);
  TensorType s = F32({2, 3, 4});
  EXPECT_TRUE(s.is_static());
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.static_shape(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(F32({}).str(), "float32[]");
  EXPECT_EQ(F32({}).num_elements(), 1);
}

TEST(Tensor, GetElementsOfEveryDType) {
  Tensor f32(DType::kF32, {2}, bytes_of<float>({1.5f, -2.0f}));
  EXPECT_DOUBLE_EQ(f32.get_f64(0), 1.5);
  EXPECT_EQ(f32.get_i64(1), -2);
  // float16: 1.0 = 0x3C00, -2.0 = 0xC000, max 65504 = 0x7BFF, smallest subnormal 2^-24 = 0x0001.
  Tensor f16(DType::kF16, {4}, bytes_of<uint16_t>({0x3C00, 0xC000, 0x7BFF, 0x0001}));
  EXPECT_DOUBLE_EQ(f16.get_f64(0), 1.0);
  EXPECT_DOUBLE_EQ(f16.get_f64(1), -2.0);
  EXPECT_DOUBLE_EQ(f16.get_f64(2), 65504.0);
  EXPECT_DOUBLE_EQ(f16.get_f64(3), std::ldexp(1.0, -24));
  EXPECT_EQ(f16.get_i64(2), 65504);
  Tensor f64(DType::kF64, {1}, bytes_of<double>({-3.75}));
  EXPECT_DOUBLE_EQ(f64.get_f64(0), -3.75);
  EXPECT_EQ(f64.get_i64(0), -3);  // truncates toward zero
  EXPECT_EQ(Tensor(DType::kI8, {1}, bytes_of<int8_t>({-7})).get_i64(0), -7);
  EXPECT_EQ(Tensor(DType::kI16, {1}, bytes_of<int16_t>({-300})).get_i64(0), -300);
  EXPECT_EQ(Tensor(DType::kI32, {1}, bytes_of<int32_t>({-70000})).get_i64(0), -70000);
  EXPECT_EQ(Tensor(DType::kI64, {1}, bytes_of<int64_t>({int64_t(1) << 40})).get_i64(0), int64_t(1)
                                                                                            << 40);
  EXPECT_EQ(Tensor(DType::kU8, {1}, bytes_of<uint8_t>({250})).get_i64(0), 250);
  Tensor b(DType::kBool, {2}, bytes_of<uint8_t>({0, 1}));
  EXPECT_EQ(b.get_i64(0), 0);
  EXPECT_DOUBLE_EQ(b.get_f64(1), 1.0);
  EXPECT_EQ(Tensor(DType::kI32, {1}, bytes_of<int32_t>({9})).get_f64(0), 9.0);
}

TEST(Tensor, TypeAndSizes) {
  Tensor t(DType::kI32, {2, 3}, std::vector<uint8_t>(24));
  EXPECT_EQ(t.num_elements(), 6);
  EXPECT_EQ(t.nbytes(), 24);
  EXPECT_EQ(t.type().str(), "int32[2,3]");
  EXPECT_THROW(Tensor(DType::kI32, {2}, std::vector<uint8_t>(3)), InternalError);
}

TEST(Tensor, LazyLoaderRunsOnce) {
  int calls = 0;
  Tensor t(DType::kF32, {2}, [&] {
    ++calls;
    return bytes_of<float>({4.0f, 5.0f});
  });
  EXPECT_EQ(calls, 0);
  EXPECT_DOUBLE_EQ(t.get_f64(1), 5.0);
  EXPECT_DOUBLE_EQ(t.get_f64(0), 4.0);
  EXPECT_EQ(calls, 1);
}

TEST(Tensor, LazyLoaderWithWrongSizeIsUserError) {
  Tensor t(DType::kF32, {4}, [] { return std::vector<uint8_t>(8); });
  std::string msg = testing::user_error([&] { t.data(); });
  EXPECT_EQ(msg, "external tensor data has 8 bytes, expected 16 for float32[4]");
}

TEST(Attrs, TypedGetters) {
  Attrs a;
  a.set("i", int64_t(3));
  a.set("f", 0.5);
  a.set("s", std::string("x"));
  a.set("is", std::vector<int64_t>{1, 2});
  EXPECT_EQ(a.get_int("i", 0), 3);
  EXPECT_EQ(a.get_int("missing", 7), 7);
  EXPECT_DOUBLE_EQ(a.get_float("f", 0), 0.5);
  EXPECT_EQ(a.get_string("s", ""), "x");
  EXPECT_EQ(a.get_ints("is"), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(a.get_floats("none").empty());
  EXPECT_THROW(a.get_int("f", 0), InternalError);
  a.erase("i");
  EXPECT_FALSE(a.has("i"));
}

TEST(OpKind, NamesRoundTrip) {
  EXPECT_STREQ(ops::op_name(ops::OpKind::Conv), "Conv");
  EXPECT_STREQ(ops::op_name(ops::OpKind::Squeeze), "Squeeze");
  EXPECT_EQ(ops::op_from_name("MatMul"), ops::OpKind::MatMul);
  EXPECT_EQ(ops::op_from_name("Relu"), ops::OpKind::Relu);
  EXPECT_FALSE(ops::op_from_name("NoSuchOp").has_value());
}

}  // namespace
}  // namespace ingot::graph
