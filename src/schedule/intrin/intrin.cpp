// The tensor-intrinsic table: registered intrinsics by name, with the FMA register-tile family
// (x86 and NEON, x86_fma.h) built on demand from its name.
#include "schedule/intrin/intrin.h"

#include <map>
#include <memory>
#include <mutex>

#include "schedule/intrin/x86_fma.h"

namespace ingot::schedule {

namespace {

struct Table {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<TensorIntrin>> by_name;
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
  t.by_name[name] = std::make_unique<TensorIntrin>(std::move(intrin));
}

const TensorIntrin* find_tensor_intrin(const std::string& name) {
  Table& t = table();
  {
    std::lock_guard<std::mutex> lock(t.mu);
    auto it = t.by_name.find(name);
    if (it != t.by_name.end()) return it->second.get();
  }
  auto spec = parse_fma_tile_spec(name);
  if (!spec) return nullptr;
  register_tensor_intrin(make_fma_tile_intrin(*spec));
  std::lock_guard<std::mutex> lock(t.mu);
  return t.by_name.at(name).get();
}

}  // namespace ingot::schedule
