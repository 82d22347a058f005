// Target string parsing and printing (no LLVM here: host detection lives in codegen/llvm/).
#include "codegen/target.h"

#include <fmt/format.h>
#include <cctype>
#include <cstdlib>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <vector>

#include "codegen/gpu/cuda_arch.h"
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
    case Target::kOpenCL:
      return "opencl";
  }
  return "?";
}

std::vector<std::string> valid_options(Target::Kind k) {
  switch (k) {
    case Target::kLLVM:
      return {"-mcpu", "-mattr", "-mtriple", "-opt-level"};
    case Target::kC:
      return {"-mcpu", "-march", "-mfpu", "-mfloat-abi", "-mtune"};
    case Target::kCUDA:
      return {"-arch", "-max-shared-memory-per-block"};
    case Target::kOpenCL:
      return {"-max-num-threads", "-max-shared-memory-per-block"};
  }
  return {};
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
    const std::string& attrs = mattr_from_host ? host_mattr_diff : mattr;
    if (!attrs.empty()) s += " -mattr=" + attrs;
    if (opt_level != 3) s += fmt::format(" -opt-level={}", opt_level);
  } else if (kind == kC) {
    for (const std::string& f : c_flags) s += " " + f;
  } else if (kind == kCUDA) {
    if (!mcpu.empty()) s += " -arch=" + mcpu;
  } else if (kind == kOpenCL) {
    if (max_num_threads != kDefaultMaxNumThreads)
      s += fmt::format(" -max-num-threads={}", max_num_threads);
  }
  if (max_shared_memory_per_block > 0)
    s += fmt::format(" -max-shared-memory-per-block={}", max_shared_memory_per_block);
  return s;
}

Target Target::parse(const std::string& spec) {
  std::istringstream in(spec);
  std::string word;
  if (!(in >> word)) fail_user("empty target string (valid kinds: llvm, c, cuda, opencl)");
  Target t;
  if (word == "llvm") {
    t.kind = kLLVM;
  } else if (word == "c") {
    t.kind = kC;
  } else if (word == "cuda") {
    t.kind = kCUDA;
  } else if (word == "opencl") {
    t.kind = kOpenCL;
  } else {
    fail_user("unknown target kind '{}' (valid: llvm, c, cuda, opencl)", word);
  }
  bool has_triple = false, has_cpu = false;
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
    if (t.kind == kC) {
      for (char c : value)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' &&
            c != '+')
          fail_user("option '{}' of target 'c': '{}' is not a valid value", key, value);
      if (key == "-mcpu") t.mcpu = value;
      t.c_flags.push_back(key + "=" + value);
      continue;
    }
    if (key == "-mtriple") {
      t.triple = value;
      has_triple = true;
    } else if (key == "-mcpu" || key == "-arch") {
      t.mcpu = value;
      has_cpu = true;
    } else if (key == "-mattr") {
      t.mattr = value;
    } else if (key == "-max-num-threads") {
      int n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < 1 || n > 1024 ||
          (n & (n - 1)) != 0)
        fail_user("-max-num-threads must be a power of two from 1 to 1024, got '{}'", value);
      t.max_num_threads = n;
    } else if (key == "-max-shared-memory-per-block") {
      int64_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc() || end != value.data() + value.size() || n < 1 || n > (1 << 30))
        fail_user("-max-shared-memory-per-block must be a byte count from 1 to 2^30, got '{}'",
                  value);
      t.max_shared_memory_per_block = n;
    } else if (key == "-opt-level") {
      if (value.size() != 1 || value[0] < '0' || value[0] > '3')
        fail_user("-opt-level must be 0, 1, 2 or 3, got '{}'", value);
      t.opt_level = value[0] - '0';
    }
  }
  if (t.kind == kLLVM) {
    // No -mcpu (or -mcpu=native) on the host's triple is the host: its CPU name with every
    // feature and its sign, then any -mattr given on top (as clang's -march=native -mno-...).
    bool native_triple = !has_triple || t.triple == host_triple();
    if (!has_triple) t.triple = host_triple();
    if (t.mcpu == "native" && !native_triple)
      fail_user("-mcpu=native needs the host's triple ({}), got '{}'", host_triple(), t.triple);
    if (native_triple && (!has_cpu || t.mcpu == "native")) {
      HostCpu host = detect_host_cpu();
      t.mcpu = host.cpu;
      std::string user_attr = t.mattr;
      t.mattr = signed_features(host);
      t.host_mattr_diff = minimal_feature_diff(host);
      if (!user_attr.empty()) {
        t.mattr += "," + user_attr;
        t.host_mattr_diff += (t.host_mattr_diff.empty() ? "" : ",") + user_attr;
      }
      t.mattr_from_host = true;
    } else if (!has_cpu) {
      t.mcpu = "generic";
    }
    resolve_llvm_target(t);
  } else if (t.kind == kCUDA && !has_cpu) {
    // No -arch: the visible GPU's, else sm_80 (as no -mcpu is the host's CPU for llvm).
    t.mcpu = visible_cuda_arch().value_or("sm_80");
  }
  return t;
}

bool Target::is_gpu() const {
  return kind == kCUDA || kind == kOpenCL;
}

bool Target::has_feature(const std::string& feature) const {
  return std::find(isa_features.begin(), isa_features.end(), feature) != isa_features.end();
}

bool Target::int8_dot_quads(int lanes) const {
  if (is_aarch64()) return lanes == 4 && (has_feature("dotprod") || has_feature("i8mm"));
  if (!is_x86()) return false;
  if (lanes == 16) return has_feature("avx512vnni");
  return lanes == 8 &&
         (has_feature("avxvnni") || (has_feature("avx512vnni") && has_feature("avx512vl")));
}

bool Target::int8_signed_dot_quads(int lanes) const {
  return is_aarch64() && lanes == 4 && has_feature("dotprod");
}

bool Target::amx_int8() const {
  return is_x86() && has_feature("amx-tile") && has_feature("amx-int8");
}

bool Target::amx_bf16() const {
  return is_x86() && has_feature("amx-tile") && has_feature("amx-bf16");
}

bool Target::bf16_dot_pairs(int lanes) const {
  if (!is_x86() || !has_feature("avx512bf16")) return false;
  return lanes == 16 || (lanes == 8 && has_feature("avx512vl"));
}

bool Target::is_x86() const {
  return kind == kLLVM && (triple.rfind("x86_64", 0) == 0 || triple.rfind("i686", 0) == 0);
}

int Target::sm_version() const {
  if (kind != kCUDA || !mcpu.starts_with("sm_")) return 0;
  return std::atoi(mcpu.c_str() + 3);
}

bool Target::is_aarch64() const {
  return kind == kLLVM && (triple.rfind("aarch64", 0) == 0 || triple.rfind("arm64", 0) == 0);
}

Target Target::host() {
  return parse("llvm");
}

}  // namespace ingot::codegen
