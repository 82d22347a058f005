// tvmc-style --input-shapes parsing.
#include "driver/input_shapes.h"

#include <cctype>

#include "support/error.h"

namespace ingot::driver {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<int64_t> parse_dims(const std::string& entry, const std::string& body) {
  std::vector<int64_t> dims;
  std::string cur;
  auto flush = [&] {
    std::string t = trim(cur);
    cur.clear();
    if (t.empty()) fail_user("--input-shapes: empty dimension in '{}'", entry);
    for (char c : t) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        fail_user("--input-shapes: dimension '{}' in '{}' is not a non-negative integer", t, entry);
    }
    if (t.size() > 15) fail_user("--input-shapes: dimension '{}' in '{}' is too large", t, entry);
    dims.push_back(std::stoll(t));
  };
  if (trim(body).empty()) return dims;  // scalar: name:[]
  for (char c : body) {
    if (c == ',') {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  return dims;
}

}  // namespace

InputShapes parse_input_shapes(const std::string& text) {
  InputShapes shapes;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t')) ++i;
    if (i >= text.size()) break;
    size_t open = text.find('[', i);
    size_t close = open == std::string::npos ? open : text.find(']', open);
    if (close == std::string::npos) {
      fail_user("--input-shapes: expected NAME:[d0,d1,...] but got '{}'", trim(text.substr(i)));
    }
    std::string entry = text.substr(i, close + 1 - i);
    size_t colon = text.rfind(':', open);
    if (colon == std::string::npos || colon < i ||
        trim(text.substr(colon + 1, open - colon - 1)) != "") {
      fail_user("--input-shapes: expected NAME:[d0,d1,...] but got '{}'", entry);
    }
    std::string name = trim(text.substr(i, colon - i));
    if (name.empty()) fail_user("--input-shapes: missing input name in '{}'", entry);
    if (shapes.count(name)) fail_user("--input-shapes: input '{}' is given twice", name);
    shapes[name] = parse_dims(entry, text.substr(open + 1, close - open - 1));
    i = close + 1;
  }
  if (shapes.empty()) fail_user("--input-shapes: no shapes given");
  return shapes;
}

}  // namespace ingot::driver
