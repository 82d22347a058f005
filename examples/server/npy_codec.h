// The server's .npy codec (npy_codec.cpp): parsing request bodies and writing replies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingot/abi.h"

namespace ingot::server {

// A parsed .npy file: its element type, shape and the view of its data inside the body.
struct NpyView {
  IngotDType dtype{};
  std::vector<int64_t> shape;
  std::string_view data;
};
// Parses a .npy body with strict bounds checks; throws CodecError naming what is malformed.
NpyView parse_npy(std::string_view body);
// A .npy file (format 1.0, C order) of `data` with this dtype and shape. Throws CodecError when
// the dtype has no .npy equivalent (bfloat16).
std::string write_npy(IngotDType dtype, const int64_t* shape, int ndim, std::string_view data);

}  // namespace ingot::server
