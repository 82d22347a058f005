// Typed node attributes: getters with defaults that check the stored type.
#include "graph/attrs.h"

#include "support/error.h"

namespace ingot::graph {

namespace {

template <typename T>
T get_typed(const std::map<std::string, AttrValue>& m, const std::string& name, const T& def,
            const char* type) {
  auto it = m.find(name);
  if (it == m.end()) return def;
  const T* v = std::get_if<T>(&it->second);
  INGOT_ICHECK(v != nullptr, "attribute '{}' is not of type {}", name, type);
  return *v;
}

}  // namespace

int64_t Attrs::get_int(const std::string& name, int64_t def) const {
  return get_typed<int64_t>(map_, name, def, "int");
}
double Attrs::get_float(const std::string& name, double def) const {
  return get_typed<double>(map_, name, def, "float");
}
std::string Attrs::get_string(const std::string& name, const std::string& def) const {
  return get_typed<std::string>(map_, name, def, "string");
}
std::vector<int64_t> Attrs::get_ints(const std::string& name,
                                     const std::vector<int64_t>& def) const {
  return get_typed<std::vector<int64_t>>(map_, name, def, "ints");
}
std::vector<double> Attrs::get_floats(const std::string& name,
                                      const std::vector<double>& def) const {
  return get_typed<std::vector<double>>(map_, name, def, "floats");
}

}  // namespace ingot::graph
