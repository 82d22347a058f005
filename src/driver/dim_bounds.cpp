// --dim-bounds parsing: NAME:LO..HI entries.
#include "driver/dim_bounds.h"

#include <cctype>
#include <sstream>

#include "support/error.h"

namespace ingot::driver {
namespace {

int64_t parse_bound(const std::string& t, const std::string& entry) {
  if (t.empty() || t.size() > 15)
    fail_user("--dim-bounds: expected NAME:LO..HI with non-negative integers, got '{}'", entry);
  for (char c : t)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      fail_user("--dim-bounds: bound '{}' in '{}' is not a non-negative integer", t, entry);
  return std::stoll(t);
}

}  // namespace

DimBounds parse_dim_bounds(const std::string& text) {
  DimBounds bounds;
  std::string spaced = text;
  for (char& c : spaced)
    if (c == ',') c = ' ';
  std::istringstream in(spaced);
  std::string entry;
  while (in >> entry) {
    size_t colon = entry.find(':');
    size_t dots = entry.find("..", colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || colon == 0 || dots == std::string::npos)
      fail_user("--dim-bounds: expected NAME:LO..HI (e.g. seq:1..1024), got '{}'", entry);
    std::string name = entry.substr(0, colon);
    lower::SymbolBounds b{parse_bound(entry.substr(colon + 1, dots - colon - 1), entry),
                          parse_bound(entry.substr(dots + 2), entry)};
    if (b.min > b.max)
      fail_user("--dim-bounds: '{}' has its lower bound {} above its upper bound {}", entry, b.min,
                b.max);
    if (!bounds.emplace(name, b).second)
      fail_user("--dim-bounds: symbol '{}' is given twice", name);
  }
  if (bounds.empty()) fail_user("--dim-bounds: no bounds given");
  return bounds;
}

}  // namespace ingot::driver
