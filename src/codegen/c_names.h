// Names in generated C-family code (the c target's C99, OpenCL C, CUDA C++): loop-IR variables
// and buffers become unique C identifiers that avoid the dialect's reserved words.
#pragma once

#include <map>
#include <set>
#include <string>

#include "tir/buffer.h"
#include "tir/expr.h"

namespace ingot::codegen {

// `name` as a C identifier: characters other than letters, digits and '_' become '_', and an
// empty name or one starting with a digit gets the prefix "v_".
std::string c_identifier(const std::string& name);

class CNames {
 public:
  // canonical: every name is "n" and a count in order of first use, whatever its base (names
  // that tell alpha-equivalent code apart from the rest, never compiled).
  explicit CNames(std::set<std::string> reserved, bool canonical = false)
      : taken_(std::move(reserved)), canonical_(canonical) {}
  // c_identifier(base), with "_1", "_2", ... appended until it is unused; then it is used.
  std::string unique(const std::string& base);
  // The identifier of a variable or buffer: made unique on first use, the same ever after.
  std::string var(const tir::VarNode* v);
  std::string buffer(const tir::BufferNode* b);

 private:
  std::set<std::string> taken_;
  bool canonical_ = false;
  int count_ = 0;
  std::map<const tir::VarNode*, std::string> vars_;
  std::map<const tir::BufferNode*, std::string> buffers_;
};

}  // namespace ingot::codegen
