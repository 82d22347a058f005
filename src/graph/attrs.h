// Typed node attributes: a small ordered map from name to one of a fixed set of value types.
// Each op's schema (src/ops/) says which names and types are valid.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace ingot::graph {

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, std::vector<std::string>>;

class Attrs {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { map_[name] = std::move(v); }
  void erase(const std::string& name) { map_.erase(name); }
  // Typed getters: the default when absent; InternalError when present with another type
  // (the importer and schema checks guarantee the types).
  int64_t get_int(const std::string& name, int64_t def) const;
  double get_float(const std::string& name, double def) const;
  std::string get_string(const std::string& name, const std::string& def) const;
  std::vector<int64_t> get_ints(const std::string& name,
                                const std::vector<int64_t>& def = {}) const;
  std::vector<double> get_floats(const std::string& name,
                                 const std::vector<double>& def = {}) const;
  const std::map<std::string, AttrValue>& all() const { return map_; }
  friend bool operator==(const Attrs& a, const Attrs& b) { return a.map_ == b.map_; }

 private:
  std::map<std::string, AttrValue> map_;
};

}  // namespace ingot::graph
