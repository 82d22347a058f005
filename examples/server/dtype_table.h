// The element types the server's codecs carry: DLPack code and bits, the KServe v2 datatype name
// and the numpy descr, shared by the JSON codec (tensor_codec.cpp) and the .npy codec
// (npy_codec.cpp).
#pragma once

#include <cstdint>

#include "ingot/abi.h"

namespace ingot::server {

// The element types the codec carries.
enum class Kind { kF16, kBF16, kF32, kF64, kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kBool };

struct KindInfo {
  Kind kind;
  uint8_t code, bits;
  const char* kserve;  // KServe v2 datatype
  const char* npy;     // numpy descr without the byte-order character, "" for none
};

// DLPack codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool.
inline constexpr KindInfo kKinds[] = {
    {Kind::kF16, 2, 16, "FP16", "f2"},   {Kind::kBF16, 4, 16, "BF16", ""},
    {Kind::kF32, 2, 32, "FP32", "f4"},   {Kind::kF64, 2, 64, "FP64", "f8"},
    {Kind::kI8, 0, 8, "INT8", "i1"},     {Kind::kI16, 0, 16, "INT16", "i2"},
    {Kind::kI32, 0, 32, "INT32", "i4"},  {Kind::kI64, 0, 64, "INT64", "i8"},
    {Kind::kU8, 1, 8, "UINT8", "u1"},    {Kind::kU16, 1, 16, "UINT16", "u2"},
    {Kind::kU32, 1, 32, "UINT32", "u4"}, {Kind::kU64, 1, 64, "UINT64", "u8"},
    {Kind::kBool, 6, 8, "BOOL", "b1"},
};

inline const KindInfo* kind_of(IngotDType dt) {
  if (dt.lanes != 1) return nullptr;
  for (const KindInfo& k : kKinds)
    if (k.code == dt.code && k.bits == dt.bits) return &k;
  return nullptr;
}

}  // namespace ingot::server
