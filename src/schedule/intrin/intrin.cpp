// The tensor-intrinsic table: registered intrinsics by name, with the FMA register-tile family
// (x86 and NEON, x86_fma.h), the dequantizing (dequant_fma.h), 8-bit (int8_dot.h), bfloat16
// (bf16_dot.h) and AMX (amx_tile.h) families built on demand from their names.
#include "schedule/intrin/intrin.h"

#include <map>
#include <memory>
#include <mutex>

#include "schedule/intrin/amx_tile.h"
#include "schedule/intrin/bf16_dot.h"
#include "schedule/intrin/dequant_fma.h"
#include "schedule/intrin/int8_dot.h"
#include "schedule/intrin/x86_fma.h"

namespace ingot::schedule {

namespace {

struct Table {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const TensorIntrin>> by_name;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

void register_tensor_intrin(TensorIntrin intrin) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  std::string name = intrin.name;
  t.by_name[name] = std::make_shared<const TensorIntrin>(std::move(intrin));
}

std::shared_ptr<const TensorIntrin> find_tensor_intrin(const std::string& name) {
  Table& t = table();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.by_name.find(name);
    if (it != t.by_name.end()) return it->second;
  }
  std::shared_ptr<const TensorIntrin> built;
  if (auto spec = parse_fma_tile_spec(name)) {
    built = std::make_shared<const TensorIntrin>(make_fma_tile_intrin(*spec));
  } else if (auto dq = parse_dequant_tile_name(name)) {
    built = std::make_shared<const TensorIntrin>(make_dequant_tile_intrin(*dq));
  } else if (auto i8 = parse_int8_tile_name(name)) {
    built = std::make_shared<const TensorIntrin>(make_int8_tile_intrin(*i8));
  } else if (auto bf = parse_bf16_tile_name(name)) {
    built = std::make_shared<const TensorIntrin>(make_bf16_tile_intrin(*bf));
  } else if (auto amx = parse_amx_tile_name(name)) {
    built = std::make_shared<const TensorIntrin>(make_amx_tile_intrin(*amx));
  } else {
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(t.mu);
  // Another thread may have built it meanwhile: keep the first (they are equal).
  return t.by_name.emplace(name, std::move(built)).first->second;
}

}  // namespace ingot::schedule
