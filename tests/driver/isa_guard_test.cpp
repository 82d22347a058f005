// Targets that follow the CPU's real features and the artifact's ISA guard: a host whose CPU name
// implies AVX-512 but whose features hide it gets 256-bit code that runs here; an artifact built
// for a feature this CPU lacks is refused at load with one error naming it; LLVM's host detection
// and the runtime's CPUID reading agree.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "codegen/target.h"
#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"

namespace ingot::testing {
namespace {

// Restores the real host when a test ends, whatever happens.
struct HostOverride {
  explicit HostOverride(codegen::HostCpu cpu) { codegen::set_host_cpu_override(std::move(cpu)); }
  ~HostOverride() { codegen::set_host_cpu_override(std::nullopt); }
};

// y = relu(x[4,64] @ w[64,48] + b[48]): a matmul micro-kernel and an epilogue.
std::string write_matmul_model(const std::filesystem::path& dir, std::vector<float>& w,
                               std::vector<float>& b) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  w.resize(64 * 48);
  b.resize(48);
  for (float& x : w) x = d(rng);
  for (float& x : b) x = d(rng);
  OnnxModelBuilder mb;
  mb.input("x", {4, 64});
  mb.initializer("w", {64, 48}, w);
  mb.initializer("b", {48}, b);
  mb.node("MatMul", {"x", "w"}, {"mm"}, "mm");
  mb.node("Add", {"mm", "b"}, {"add"}, "add");
  mb.node("Relu", {"add"}, {"y"}, "relu");
  mb.output("y");
  std::string path = (dir / "matmul.onnx").string();
  mb.save(path);
  return path;
}

TEST(IsaGuard, Zen4NameWithAvx512HiddenGives256BitCodeThatRunsHere) {
  codegen::HostCpu real = codegen::detect_host_cpu();
  if (real.triple.rfind("x86_64", 0) != 0) GTEST_SKIP() << "x86-64 only";
  if (!real.features["avx2"] || !real.features["fma"]) GTEST_SKIP() << "needs AVX2 and FMA";
  // A hypervisor that reports a Zen 4 but hides AVX-512: the CPU name implies avx512f, the
  // features say no. Everything else is this machine's own (so the code can run here).
  codegen::HostCpu vm = real;
  vm.cpu = "znver4";
  for (auto& [name, on] : vm.features)
    if (name.rfind("avx512", 0) == 0 || name == "evex512" || name.rfind("amx", 0) == 0) on = false;
  HostOverride guard(vm);

  codegen::Target t = codegen::Target::host();
  EXPECT_EQ(t.mcpu, "znver4");
  EXPECT_EQ(t.vector_bits, 256);
  EXPECT_EQ(t.vector_isa, "avx2");
  EXPECT_NE(t.str().find("-avx512f"), std::string::npos) << t.str();
  for (const std::string& f : t.isa_features) EXPECT_NE(f.rfind("avx512", 0), 0u) << f;
  // The canonical string means the same target elsewhere (no host features implied).
  codegen::Target again = codegen::Target::parse(t.str());
  EXPECT_EQ(again.vector_bits, 256);
  EXPECT_EQ(again.isa_features, t.isa_features);

  auto dir = temp_dir("isa_zen4_hidden");
  std::vector<float> w, b;
  std::string model = write_matmul_model(dir, w, b);
  std::string so = (dir / "m.so").string();
  CompiledModel m(model, so);  // loads: the ISA guard accepts it on this CPU
  std::string isa = ingot_model_artifact(m.model())->isa_features;
  EXPECT_EQ(isa.find("avx512"), std::string::npos) << isa;
  EXPECT_NE(isa.find("avx2"), std::string::npos) << isa;
  std::string disasm = run_command("objdump -d --no-show-raw-insn '" + so + "'");
  ASSERT_NE(disasm.find("vfmadd"), std::string::npos) << "objdump missing or no FMA code";
  EXPECT_EQ(disasm.find("zmm"), std::string::npos) << "512-bit registers in a 256-bit artifact";
  EXPECT_NE(disasm.find("ymm"), std::string::npos);

  std::vector<float> x(4 * 64);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 13) - 6) / 8.f;
  m.set_input("x", x);
  m.run();
  std::vector<float> y = m.output(0);
  ASSERT_EQ(y.size(), 4u * 48u);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 48; ++j) {
      double acc = b[j];
      for (int k = 0; k < 64; ++k) acc += double(x[i * 64 + k]) * w[k * 48 + j];
      EXPECT_NEAR(y[i * 48 + j], std::max(acc, 0.0), 1e-4 * (1 + std::fabs(acc))) << i << "," << j;
    }
}

TEST(IsaGuard, ArtifactNeedingAFeatureThisCpuLacksIsRefusedAtLoad) {
  codegen::Target host = codegen::Target::host();
  std::string lacking;
  for (const std::string& f : codegen::checkable_isa_features(host.triple))
    if (ingot_cpu_supports(f.c_str()) == 0) {
      lacking = f;
      break;
    }
  if (lacking.empty()) GTEST_SKIP() << "this CPU has every feature ingot checks";

  auto dir = temp_dir("isa_refused");
  std::vector<float> w, b;
  std::string model = write_matmul_model(dir, w, b);
  std::string so = (dir / "m.so").string();
  driver::CompileOptions opts;
  opts.target = "llvm -mcpu=x86-64-v2 -mattr=+" + lacking;
  std::ostringstream dump;
  driver::compile_model(model, so, opts, dump);

  IngotModel* loaded = nullptr;
  EXPECT_EQ(ingot_model_load(so.c_str(), &loaded), INGOT_ERR_LOAD);
  EXPECT_EQ(loaded, nullptr);
  std::string err = ingot_last_error();
  EXPECT_EQ(err.rfind("artifact '" + so + "' needs ", 0), 0u) << err;
  EXPECT_NE(err.find(lacking), std::string::npos) << err;
  EXPECT_NE(err.find("; this CPU has "), std::string::npos) << err;

  // Its record can still be read (ingot inspect), but no session runs it.
  ASSERT_EQ(ingot_model_load_for_inspection(so.c_str(), &loaded), INGOT_OK);
  std::string isa = ingot_model_artifact(loaded)->isa_features;
  EXPECT_NE(isa.find(lacking), std::string::npos) << isa;
  IngotSession* session = nullptr;
  EXPECT_EQ(ingot_session_create(loaded, &session), INGOT_ERR_LOAD);
  EXPECT_EQ(session, nullptr);
  EXPECT_EQ(std::string(ingot_last_error()), err);
  ingot_model_free(loaded);
}

TEST(IsaGuard, ArtifactForAnotherArchitectureIsOneClearError) {
  codegen::Target host = codegen::Target::host();
  std::string other, other_name, host_name;
  if (host.is_x86()) {
    other = "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1";
    other_name = "aarch64 (ELF machine 183)";
    host_name = "x86-64";
  } else if (host.is_aarch64()) {
    other = "llvm -mtriple=x86_64-linux-gnu -mcpu=znver3";
    other_name = "x86-64 (ELF machine 62)";
    host_name = "aarch64";
  } else {
    GTEST_SKIP() << "x86-64 or aarch64 hosts only";
  }
  auto dir = temp_dir("isa_other_arch");
  std::vector<float> w, b;
  std::string model = write_matmul_model(dir, w, b);
  std::string so = (dir / "m.so").string();
  driver::CompileOptions opts;
  opts.target = other;
  std::ostringstream dump;
  driver::compile_model(model, so, opts, dump);
  IngotModel* loaded = nullptr;
  EXPECT_EQ(ingot_model_load(so.c_str(), &loaded), INGOT_ERR_LOAD);
  // dlopen alone says "cannot open shared object file: No such file or directory".
  EXPECT_EQ(std::string(ingot_last_error()), "artifact '" + so + "' is built for " + other_name +
                                                 "; this runtime runs " + host_name + " artifacts");
  EXPECT_EQ(ingot_model_load_for_inspection(so.c_str(), &loaded), INGOT_ERR_LOAD);
}

TEST(IsaGuard, LlvmHostDetectionAndTheRuntimeAgree) {
  codegen::Target host = codegen::Target::host();
  // Every name the compiler may require is one the runtime can test...
  for (const std::string& f : codegen::checkable_isa_features(host.triple))
    EXPECT_NE(ingot_cpu_supports(f.c_str()), -1) << f;
  // ...and what LLVM says the host has, the runtime finds in CPUID/HWCAP too: the host target's
  // own artifacts always load here.
  for (const std::string& f : host.isa_features) EXPECT_EQ(ingot_cpu_supports(f.c_str()), 1) << f;
}

}  // namespace
}  // namespace ingot::testing
