// Target string parsing and printing (no LLVM here: host detection lives in codegen/llvm/).
#include "codegen/target.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "support/error.h"

namespace ingot::codegen {
namespace {

const char* kind_name(Target::Kind k) {
  switch (k) {
    case Target::kLLVM:
      return "llvm";
    case Target::kC:
      return "c";
    case Target::kCUDA:
      return "cuda";
  }
  return "?";
}

std::vector<std::string> valid_options(Target::Kind k) {
  switch (k) {
    case Target::kLLVM:
      return {"-mcpu", "-mattr", "-mtriple", "-opt-level"};
    case Target::kC:
      return {};
    case Target::kCUDA:
      return {"-arch"};
  }
  return {};
}

bool has_feature(const std::string& mattr, const std::string& name) {
  std::string needle = "+" + name;
  size_t pos = 0;
  while ((pos = mattr.find(needle, pos)) != std::string::npos) {
    size_t end = pos + needle.size();
    if (end == mattr.size() || mattr[end] == ',') return true;
    pos = end;
  }
  return false;
}

// Widest SIMD register the features (or, for x86 CPUs, the CPU name) imply.
int vector_bits_of(const Target& t) {
  if (t.kind != Target::kLLVM) return 128;
  bool x86 = t.triple.rfind("x86_64", 0) == 0 || t.triple.rfind("i686", 0) == 0;
  if (!x86) return 128;  // NEON / generic
  if (has_feature(t.mattr, "avx512f")) return 512;
  if (has_feature(t.mattr, "avx") || has_feature(t.mattr, "avx2")) return 256;
  static const char* k512[] = {
      "skylake-avx512", "cascadelake",   "cooperlake",    "icelake-server", "icelake-client",
      "sapphirerapids", "emeraldrapids", "graniterapids", "znver4",         "znver5",
      "tigerlake",      "rocketlake",    "x86-64-v4"};
  for (const char* c : k512)
    if (t.mcpu == c) return 512;
  static const char* k256[] = {"haswell", "broadwell", "skylake",   "znver1",
                               "znver2",  "znver3",    "alderlake", "x86-64-v3"};
  for (const char* c : k256)
    if (t.mcpu == c) return 256;
  return 128;
}

std::string join(const std::vector<std::string>& v) {
  if (v.empty()) return "none";
  std::string s;
  for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::string Target::str() const {
  std::string s = kind_name(kind);
  if (kind == kLLVM) {
    if (!triple.empty() && triple != host_triple()) s += " -mtriple=" + triple;
    if (!mcpu.empty()) s += " -mcpu=" + mcpu;
    if (!mattr.empty() && !mattr_from_host) s += " -mattr=" + mattr;
    if (opt_level != 3) s += fmt::format(" -opt-level={}", opt_level);
  } else if (kind == kCUDA) {
    if (!mcpu.empty()) s += " -arch=" + mcpu;
  }
  return s;
}

Target Target::parse(const std::string& spec) {
  std::istringstream in(spec);
  std::string word;
  if (!(in >> word)) fail_user("empty target string (valid kinds: llvm, c, cuda)");
  Target t;
  if (word == "llvm") {
    t.kind = kLLVM;
  } else if (word == "c") {
    t.kind = kC;
  } else if (word == "cuda") {
    t.kind = kCUDA;
  } else {
    fail_user("unknown target kind '{}' (valid: llvm, c, cuda)", word);
  }
  bool has_triple = false, has_cpu = false, has_attr = false;
  while (in >> word) {
    size_t eq = word.find('=');
    std::string key = word.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : word.substr(eq + 1);
    auto valid = valid_options(t.kind);
    if (std::find(valid.begin(), valid.end(), key) == valid.end())
      fail_user("unknown option '{}' for target '{}' (valid: {})", key, kind_name(t.kind),
                join(valid));
    if (eq == std::string::npos || value.empty())
      fail_user("option '{}' of target '{}' needs a value ({}=...)", key, kind_name(t.kind), key);
    if (key == "-mtriple") {
      t.triple = value;
      has_triple = true;
    } else if (key == "-mcpu" || key == "-arch") {
      t.mcpu = value;
      has_cpu = true;
    } else if (key == "-mattr") {
      t.mattr = value;
      has_attr = true;
    } else if (key == "-opt-level") {
      if (value.size() != 1 || value[0] < '0' || value[0] > '3')
        fail_user("-opt-level must be 0, 1, 2 or 3, got '{}'", value);
      t.opt_level = value[0] - '0';
    }
  }
  if (t.kind == kLLVM) {
    bool native = !has_triple || t.triple == host_triple();
    if (!has_triple) t.triple = host_triple();
    if (!has_cpu) t.mcpu = native ? host_cpu() : "generic";
    if (!has_attr && native && t.mcpu == host_cpu()) {
      t.mattr = host_features();
      t.mattr_from_host = true;
    }
  } else if (t.kind == kCUDA && !has_cpu) {
    t.mcpu = "sm_80";
  }
  t.vector_bits = vector_bits_of(t);
  return t;
}

Target Target::host() {
  return parse("llvm");
}

}  // namespace ingot::codegen
