// OpKind: the enum of graph ops generated from op_list.def, and name lookup.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ops/op_list.def"

namespace ingot::ops {

enum class OpKind : uint16_t {
#define INGOT_X(N) N,
  INGOT_OP_LIST(INGOT_X)
#undef INGOT_X
};

const char* op_name(OpKind op);
std::optional<OpKind> op_from_name(std::string_view name);

}  // namespace ingot::ops
