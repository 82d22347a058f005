// Identifiers for generated C-family code (see c_names.h).
#include "codegen/c_names.h"

#include <cctype>

namespace ingot::codegen {

std::string c_identifier(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v_" + s;
  return s;
}

std::string CNames::unique(const std::string& base) {
  if (canonical_) return "n" + std::to_string(count_++);
  const std::string n = c_identifier(base);
  std::string name = n;
  for (int k = 1; !taken_.insert(name).second; ++k) name = n + "_" + std::to_string(k);
  return name;
}

std::string CNames::var(const tir::VarNode* v) {
  auto it = vars_.find(v);
  if (it != vars_.end()) return it->second;
  return vars_[v] = unique(v->name);
}

std::string CNames::buffer(const tir::BufferNode* b) {
  auto it = buffers_.find(b);
  if (it != buffers_.end()) return it->second;
  return buffers_[b] = unique(b->name);
}

}  // namespace ingot::codegen
