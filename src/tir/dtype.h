// Loop-IR scalar/vector data type: a DLPack-style (code, bits, lanes) triple. bfloat16 has
// DLPack's own code (kBFloat) and counts as a float: is_float() holds for it, is_float16() does
// not.
#pragma once

#include <cstdint>
#include <string>

namespace ingot::tir {

struct DataType {
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kHandle = 3, kBFloat = 4, kBool = 6 };
  Code code = kFloat;
  uint8_t bits = 32;
  uint16_t lanes = 1;

  static DataType f32(int lanes = 1) { return {kFloat, 32, uint16_t(lanes)}; }
  static DataType f16(int lanes = 1) { return {kFloat, 16, uint16_t(lanes)}; }
  static DataType bf16(int lanes = 1) { return {kBFloat, 16, uint16_t(lanes)}; }
  static DataType f64(int lanes = 1) { return {kFloat, 64, uint16_t(lanes)}; }
  static DataType i8(int lanes = 1) { return {kInt, 8, uint16_t(lanes)}; }
  static DataType i16(int lanes = 1) { return {kInt, 16, uint16_t(lanes)}; }
  static DataType i32(int lanes = 1) { return {kInt, 32, uint16_t(lanes)}; }
  static DataType i64(int lanes = 1) { return {kInt, 64, uint16_t(lanes)}; }
  static DataType u8(int lanes = 1) { return {kUInt, 8, uint16_t(lanes)}; }
  static DataType boolean(int lanes = 1) { return {kBool, 1, uint16_t(lanes)}; }
  static DataType handle() { return {kHandle, 64, 1}; }

  bool is_float() const { return code == kFloat || code == kBFloat; }
  // IEEE binary16 (float16), and bfloat16 (the upper half of a float32).
  bool is_float16() const { return code == kFloat && bits == 16; }
  bool is_bfloat16() const { return code == kBFloat; }
  bool is_int() const { return code == kInt; }
  bool is_uint() const { return code == kUInt; }
  bool is_bool() const { return code == kBool; }
  bool is_integer() const { return code == kInt || code == kUInt; }
  bool is_handle() const { return code == kHandle; }
  bool is_scalar() const { return lanes == 1; }
  bool is_vector() const { return lanes > 1; }
  DataType element_of() const { return {code, bits, 1}; }
  DataType with_lanes(int n) const { return {code, bits, uint16_t(n)}; }
  // Storage size of one element in bytes (bool is stored as one byte).
  int bytes() const { return code == kBool ? 1 : (bits + 7) / 8; }

  friend bool operator==(const DataType& a, const DataType& b) {
    return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
  }
  friend bool operator!=(const DataType& a, const DataType& b) { return !(a == b); }
  // "float32", "int64", "bool", "float32x16".
  std::string str() const;
};

}  // namespace ingot::tir
