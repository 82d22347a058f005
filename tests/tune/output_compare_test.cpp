// The tuner's check of a candidate's outputs against the default schedule's
// (tune::max_relative_difference): float arrays by relative difference, integer arrays exactly
// (an 8-bit product's int32 or uint8 outputs: the int8 kernels were untunable while only float32
// outputs compared, every candidate "wrong"), mismatched names, shapes or dtypes never equal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "support/npz.h"
#include "tune/measure.h"

namespace ingot::tune {
namespace {

template <typename T>
NpyArray array(const std::string& name, const std::string& dtype, std::vector<T> values) {
  NpyArray a{name, dtype, {int64_t(values.size())}, {}};
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

std::string npz(const std::string& tag, const std::vector<NpyArray>& arrays) {
  std::string path = ::testing::TempDir() + "/output_compare_" + tag + ".npz";
  write_npz(path, arrays);
  return path;
}

TEST(OutputCompare, IntegersMustBeEqualFloatsCloseAndShapesTheSame) {
  const std::string i32 = npz("i32", {array<int32_t>("y", "<i4", {1, -7, 1 << 30})});
  const std::string i32_same = npz("i32_same", {array<int32_t>("y", "<i4", {1, -7, 1 << 30})});
  const std::string i32_off = npz("i32_off", {array<int32_t>("y", "<i4", {1, -7, (1 << 30) + 1})});
  EXPECT_EQ(max_relative_difference(i32_same, i32), 0.0);
  EXPECT_TRUE(std::isinf(max_relative_difference(i32_off, i32)));  // 1 in 2^30: still wrong
  const std::string u8 = npz("u8", {array<uint8_t>("q", "|u1", {0, 255})});
  EXPECT_EQ(max_relative_difference(u8, npz("u8_same", {array<uint8_t>("q", "|u1", {0, 255})})),
            0.0);
  const std::string f = npz("f", {array<float>("y", "<f4", {1.0f, 100.0f})});
  const std::string g = npz("g", {array<float>("y", "<f4", {1.0f, 100.5f})});
  EXPECT_NEAR(max_relative_difference(g, f), 0.5 / 101.0, 1e-9);
  EXPECT_TRUE(std::isinf(max_relative_difference(i32, f)));  // names and dtypes differ
  const std::string f64 = npz("f64", {array<double>("y", "<f8", {1.0, 100.0})});
  EXPECT_TRUE(std::isinf(max_relative_difference(f64, f)));  // dtypes differ
  EXPECT_EQ(max_relative_difference(f64, npz("f64b", {array<double>("y", "<f8", {1.0, 100.0})})),
            0.0);
}

}  // namespace
}  // namespace ingot::tune
