// Parses tvmc-style `--input-shapes` values: "x:[1,3,224,224] mask:[1,128]" (entries separated
// by spaces or by commas outside brackets).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ingot::driver {

using InputShapes = std::map<std::string, std::vector<int64_t>>;

// UserError naming the offending entry on malformed text.
InputShapes parse_input_shapes(const std::string& text);

}  // namespace ingot::driver
