// OpKind names, generated from op_list.def.
#include "ops/op_kind.h"

#include <iterator>

namespace ingot::ops {

namespace {
constexpr const char* kNames[] = {
#define INGOT_X(N) #N,
    INGOT_OP_LIST(INGOT_X)
#undef INGOT_X
};
}  // namespace

const char* op_name(OpKind op) {
  auto i = size_t(op);
  return i < std::size(kNames) ? kNames[i] : "<bad op>";
}

std::optional<OpKind> op_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i)
    if (name == kNames[i]) return OpKind(i);
  return std::nullopt;
}

}  // namespace ingot::ops
