// Resolution and validation of llvm targets against LLVM's own CPU and feature tables: names are
// checked before any codegen, and the vector width and the artifact's ISA requirement follow the
// effective feature set (CPU name plus -mattr), never the CPU name alone.
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Triple.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "codegen/llvm/target_machine.h"
#include "codegen/target.h"
#include "support/error.h"

namespace ingot::codegen {
namespace {

const llvm::Target& lookup(const std::string& triple) {
  initialize_llvm_targets();
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
  if (t == nullptr)
    fail_user(
        "target triple '{}' is not supported (LLVM: {}); try x86_64-linux-gnu or "
        "aarch64-linux-gnu",
        triple, err);
  return *t;
}

std::unique_ptr<llvm::MCSubtargetInfo> subtarget(const std::string& triple, const std::string& cpu,
                                                 const std::string& features) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      lookup(triple).createMCSubtargetInfo(triple, cpu, features));
  if (!sti) fail_user("LLVM has no subtarget information for triple '{}'", triple);
  return sti;
}

// The `count` names of `all` nearest to `name` by edit distance, nearest first.
std::string nearest(const std::string& name, std::vector<std::string> all, size_t count = 4) {
  llvm::StringRef n(name);
  std::stable_sort(all.begin(), all.end(), [&](const std::string& a, const std::string& b) {
    return n.edit_distance(a) < n.edit_distance(b);
  });
  all.resize(std::min(all.size(), count));
  std::string s;
  for (const std::string& x : all) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void check_cpu(const llvm::MCSubtargetInfo& sti, const Target& t) {
  if (t.mcpu.empty() || sti.isCPUStringValid(t.mcpu)) return;
  std::vector<std::string> cpus;
  for (const auto& kv : sti.getAllProcessorDescriptions()) cpus.push_back(kv.Key);
  fail_user("unknown CPU '{}' for {} in target '{}' (nearest: {})", t.mcpu,
            llvm::Triple(t.triple).getArchName().str(), t.str(), nearest(t.mcpu, cpus));
}

void check_features(const llvm::MCSubtargetInfo& sti, const Target& t) {
  std::vector<std::string> known;
  for (const auto& kv : sti.getAllProcessorFeatures()) known.push_back(kv.Key);
  llvm::StringRef rest(t.mattr);
  while (!rest.empty()) {
    auto [item, tail] = rest.split(',');
    rest = tail;
    std::string f = item.trim().str();
    if (f.empty()) continue;
    if (f[0] != '+' && f[0] != '-')
      fail_user("feature '{}' in -mattr needs a sign: '+{}' enables it, '-{}' disables it", f, f,
                f);
    std::string name = f.substr(1);
    if (std::find(known.begin(), known.end(), name) == known.end())
      fail_user("unknown feature '{}' for {} in -mattr (nearest: {})", name,
                llvm::Triple(t.triple).getArchName().str(), nearest(name, known));
  }
}

bool has(const llvm::MCSubtargetInfo& sti, const char* feature) {
  return sti.checkFeatures(std::string("+") + feature);
}

}  // namespace

const std::vector<std::string>& checkable_isa_features(const std::string& triple) {
  // Each name is one the runtime tests (runtime/cpu_features.c: CPUID leaves and XCR0 on x86,
  // AT_HWCAP/AT_HWCAP2 on aarch64); tests/driver/isa_guard_test.cpp checks the two lists agree.
  // Only features LLVM may select for ingot's kernels on its own: crypto (aes, pclmul, sha,
  // vaes, vpclmulqdq), adx, cx16, crc, lse, rcpc and rdm appear only through intrinsics or atomics
  // that ingot never emits, so a -mcpu that implies them must not stop the artifact elsewhere.
  // The AMX features appear through the AMX tile micro-kernels' intrinsics (intrin/amx_tile.h),
  // which the rules take wherever the target has them: a -mcpu that implies them (sapphirerapids)
  // gets AMX kernels, so the artifact needs them.
  // AMD's sse4a (EXTRQ/INSERTQ shuffles), xop, fma4 and tbm are selected on their own, so an
  // AMD -mcpu (znver*) is refused on Intel CPUs; x86-64-v3 or haswell is portable AVX2.
  static const std::vector<std::string> x86 = {
      "sse3",       "ssse3",      "sse4.1",      "sse4.2",     "popcnt",       "movbe",
      "avx",        "f16c",       "fma",         "bmi",        "bmi2",         "lzcnt",
      "avx2",       "avxvnni",    "gfni",        "sse4a",      "xop",          "fma4",
      "tbm",        "avx512f",    "avx512dq",    "avx512cd",   "avx512bw",     "avx512vl",
      "avx512ifma", "avx512vbmi", "avx512vbmi2", "avx512vnni", "avx512bitalg", "avx512vpopcntdq",
      "avx512bf16", "avx512fp16", "amx-tile",    "amx-int8",   "amx-bf16"};
  static const std::vector<std::string> aarch64 = {"fp-armv8", "neon", "fullfp16", "dotprod",
                                                   "i8mm",     "bf16", "sve",      "sve2"};
  static const std::vector<std::string> none;
  llvm::Triple tr(triple);
  if (tr.getArch() == llvm::Triple::x86_64) return x86;
  if (tr.getArch() == llvm::Triple::aarch64) return aarch64;
  return none;
}

void resolve_llvm_target(Target& t) {
  // 1. Names: the triple has a backend, the CPU and every -mattr feature exist for it.
  std::unique_ptr<llvm::MCSubtargetInfo> base = subtarget(t.triple, "", "");
  check_cpu(*base, t);
  check_features(*base, t);
  // 2. The effective features: the CPU's implied ones, then -mattr in order.
  std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget(t.triple, t.mcpu, t.mattr);
  t.isa_features.clear();
  for (const std::string& f : checkable_isa_features(t.triple))
    if (has(*sti, f.c_str())) t.isa_features.push_back(f);
  // 3. The vector ISA and width follow the features.
  llvm::Triple tr(t.triple);
  if (tr.getArch() == llvm::Triple::x86_64 || tr.getArch() == llvm::Triple::x86) {
    if (has(*sti, "avx512f") && has(*sti, "evex512")) {
      t.vector_isa = "avx512";
      t.vector_bits = 512;
    } else if (has(*sti, "avx2") || has(*sti, "avx")) {
      t.vector_isa = has(*sti, "avx2") ? "avx2" : "avx";
      t.vector_bits = 256;
    } else {
      t.vector_isa = "sse";
      t.vector_bits = 128;
    }
  } else if (tr.getArch() == llvm::Triple::aarch64) {
    t.vector_isa = has(*sti, "neon") ? "neon" : "none";
    t.vector_bits = 128;
  } else {
    t.vector_isa = "none";
    t.vector_bits = 128;
  }
}

std::string minimal_feature_diff(const HostCpu& host) {
  std::unique_ptr<llvm::MCSubtargetInfo> sti = subtarget(host.triple, host.cpu, "");
  std::vector<std::string> known;
  for (const auto& kv : sti->getAllProcessorFeatures()) known.push_back(kv.Key);
  std::string on, off;
  for (const auto& [name, enabled] : host.features) {
    if (std::find(known.begin(), known.end(), name) == known.end()) continue;
    if (has(*sti, name.c_str()) == enabled) continue;
    std::string& s = enabled ? on : off;
    s += (s.empty() ? "" : ",") + std::string(enabled ? "+" : "-") + name;
  }
  return on.empty() ? off : off.empty() ? on : on + "," + off;
}

std::string describe_target(const Target& t) {
  if (t.kind != Target::kLLVM) return fmt::format("target: {}\n", t.str());
  std::string req;
  for (const std::string& f : t.isa_features) req += (req.empty() ? "" : ",") + f;
  std::string s = fmt::format("target:      {}\n", t.str());
  s += fmt::format("triple:      {}\n", t.triple);
  s += fmt::format("cpu:         {}{}\n", t.mcpu,
                   t.mattr_from_host ? " (the host: every host feature with its sign)" : "");
  if (t.mattr_from_host && !t.host_mattr_diff.empty())
    s += fmt::format("host differs from the cpu's defaults: {}\n", t.host_mattr_diff);
  else if (!t.mattr_from_host && !t.mattr.empty())
    s += fmt::format("mattr:       {}\n", t.mattr);
  s += fmt::format("vector isa:  {} ({}-bit, {} x f32)\n", t.vector_isa, t.vector_bits,
                   t.vector_bits / 32);
  s += fmt::format("requires:    {}\n", req.empty() ? "(baseline only)" : req);
  return s;
}

}  // namespace ingot::codegen
