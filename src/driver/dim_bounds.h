// Parses `--dim-bounds` values: "seq:1..1024 past:0..1023" (entries separated by spaces or
// commas), the bounds of the model inputs' symbolic dims (docs/dynamic-shapes.md).
#pragma once

#include <map>
#include <string>

#include "lower/symbolic_dims.h"

namespace ingot::driver {

using DimBounds = std::map<std::string, lower::SymbolBounds>;

// UserError naming the offending entry on malformed text (or lo > hi, or a symbol given twice).
DimBounds parse_dim_bounds(const std::string& text);

}  // namespace ingot::driver
