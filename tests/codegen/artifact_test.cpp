// The artifact as a whole: the exported record's layout and fields, workspace and constants
// across two kernels, profiling hooks, status propagation, exported/undefined symbols, LLVM IR
// dumps, cross compilation, and the linker's failure and re-entry behaviour.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <thread>

#include "artifact_util.h"
#include "codegen/link.h"
#include "codegen/llvm/codegen_llvm.h"
#include "elf_reader.h"
#include "support/error.h"

namespace ingot::codegen::test {
namespace {

using namespace tir;

// The layout the compiler emits (see module_builder.cpp) is x86_64's C layout of abi.h.
static_assert(sizeof(IngotArtifact) == 176);
static_assert(offsetof(IngotArtifact, num_states) == 160 && offsetof(IngotArtifact, states) == 168);
static_assert(sizeof(IngotStateInfo) == 64 && offsetof(IngotStateInfo, step) == 56);
static_assert(offsetof(IngotArtifact, value_fn) == 152);
static_assert(offsetof(IngotArtifact, workspace_fn) == 144);
static_assert(offsetof(IngotArtifact, num_symbols) == 120);
static_assert(offsetof(IngotArtifact, shape_fn) == 136);
static_assert(offsetof(IngotArtifact, isa_features) == 104);
static_assert(offsetof(IngotArtifact, device_code) == 112);
static_assert(sizeof(IngotDeviceCode) == 80 && offsetof(IngotDeviceCode, launches) == 40 &&
              offsetof(IngotDeviceCode, constants) == 56 &&
              offsetof(IngotDeviceCode, binary_bytes) == 72);
static_assert(sizeof(IngotDeviceLaunch) == 40 && offsetof(IngotDeviceLaunch, first_arg) == 32);
static_assert(sizeof(IngotDeviceArg) == 16);
static_assert(offsetof(IngotArtifact, target) == 24);
static_assert(offsetof(IngotArtifact, num_inputs) == 36);
static_assert(offsetof(IngotArtifact, workspace_bytes) == 64);
static_assert(offsetof(IngotArtifact, entry) == 80);
static_assert(offsetof(IngotArtifact, kernels) == 96);
static_assert(sizeof(IngotTensorInfo) == 40 && offsetof(IngotTensorInfo, shape) == 16 &&
              offsetof(IngotTensorInfo, specialized_value) == 32);
static_assert(sizeof(IngotKernelInfo) == 32 && offsetof(IngotKernelInfo, ops) == 24 &&
              sizeof(IngotDType) == 4);
static_assert(sizeof(IngotArtifactTrailer) == 32);

constexpr int64_t kN = 40;

// Y = X * W + Bias, through a workspace temporary T; W and Bias are constants.
// kernel 0 "scale": T = X * W (parallel); kernel 1 "shift": Y = T + Bias.
IRModule two_kernel_module() {
  IRModule m;
  m.model_name = "affine";
  Var i("i");
  {
    Buffer x = make_buffer("X", DataType::f32(), {kN});
    Buffer w = make_buffer("W", DataType::f32(), {kN});
    Buffer t = make_buffer("T", DataType::f32(), {kN});
    m.kernels.push_back(PrimFunc{
        "scale",
        {x, w, t},
        For::make(i, i64(0), i64(kN), ForKind::kParallel, BufferStore::make(t, x(i) * w(i), {i})),
        double(kN),
        12.0 * kN});
  }
  {
    Buffer t = make_buffer("T", DataType::f32(), {kN});
    Buffer b = make_buffer("Bias", DataType::f32(), {kN});
    Buffer y = make_buffer("Y", DataType::f32(), {kN});
    m.kernels.push_back(PrimFunc{
        "shift",
        {t, b, y},
        For::make(i, i64(0), i64(kN), ForKind::kVectorized, BufferStore::make(y, t(i) + b(i), {i})),
        double(kN),
        12.0 * kN});
  }
  m.kernels[0].source_ops = {"Mul", "Relu"};
  m.inputs.push_back(TensorDesc{"x", DataType::f32(), {2, kN / 2}, {"N", ""}});
  m.outputs.push_back(TensorDesc{"y", DataType::f32(), {kN}, {""}});
  m.workspace_bytes = 256;
  m.constants.resize(256 + kN * 4);
  for (int64_t k = 0; k < kN; ++k) {
    float w = 0.5f * float(k), bias = 100.0f - float(k);
    std::memcpy(&m.constants[k * 4], &w, 4);
    std::memcpy(&m.constants[256 + k * 4], &bias, 4);
  }
  m.entry.push_back(
      KernelCall{0, {{ArgRef::kInput, 0}, {ArgRef::kConstant, 0}, {ArgRef::kWorkspace, 64}}});
  m.entry.push_back(
      KernelCall{1, {{ArgRef::kWorkspace, 64}, {ArgRef::kConstant, 256}, {ArgRef::kOutput, 0}}});
  return m;
}

TEST(Artifact, RecordFields) {
  IRModule m = two_kernel_module();
  Target target = Target::host();
  LoadedArtifact art(m, target);
  const IngotArtifact& r = art.record();
  EXPECT_EQ(r.magic, INGOT_ARTIFACT_MAGIC);
  EXPECT_EQ(r.abi_version, INGOT_ABI_VERSION);
  EXPECT_EQ(r.struct_size, sizeof(IngotArtifact));
  EXPECT_STREQ(r.model_name, "affine");
  EXPECT_EQ(std::string(r.target), target.str());
  EXPECT_EQ(r.device_type, 1);
  ASSERT_EQ(r.num_inputs, 1);
  EXPECT_STREQ(r.inputs[0].name, "x");
  EXPECT_EQ(r.inputs[0].dtype.code, 2);
  EXPECT_EQ(r.inputs[0].dtype.bits, 32);
  EXPECT_EQ(r.inputs[0].dtype.lanes, 1);
  ASSERT_EQ(r.inputs[0].ndim, 2);
  EXPECT_EQ(r.inputs[0].shape[0], 2);
  EXPECT_EQ(r.inputs[0].shape[1], kN / 2);
  EXPECT_STREQ(r.inputs[0].dim_names[0], "N");
  EXPECT_STREQ(r.inputs[0].dim_names[1], "");
  ASSERT_EQ(r.num_outputs, 1);
  EXPECT_STREQ(r.outputs[0].name, "y");
  EXPECT_EQ(r.outputs[0].shape[0], kN);
  EXPECT_EQ(r.workspace_bytes, 256u);
  EXPECT_EQ(r.constant_bytes, 256u + kN * 4);
  ASSERT_EQ(r.num_kernels, 2);
  EXPECT_STREQ(r.kernels[0].name, "scale");
  EXPECT_STREQ(r.kernels[1].name, "shift");
  EXPECT_EQ(r.kernels[1].flops, double(kN));
  EXPECT_EQ(r.kernels[1].bytes_moved, 12.0 * kN);
  EXPECT_STREQ(r.kernels[0].ops, "Mul+Relu");
  EXPECT_STREQ(r.kernels[1].ops, "");
  EXPECT_NE(r.entry, nullptr);
  EXPECT_EQ(r.inputs[0].specialized_value, nullptr);
  EXPECT_EQ(r.outputs[0].specialized_value, nullptr);
}

// A specialised input's compile-time value is embedded and pointed to by its tensor info.
TEST(Artifact, RecordsSpecializedInputValue) {
  IRModule m = two_kernel_module();
  std::vector<uint8_t> value(size_t(kN) * 4);
  for (size_t i = 0; i < value.size(); ++i) value[i] = uint8_t(i * 7 + 1);
  m.inputs[0].specialized_value = value;
  LoadedArtifact art(m, Target::host());
  const IngotArtifact& r = art.record();
  ASSERT_NE(r.inputs[0].specialized_value, nullptr);
  EXPECT_EQ(std::memcmp(r.inputs[0].specialized_value, value.data(), value.size()), 0);
  EXPECT_EQ(r.outputs[0].specialized_value, nullptr);
}

TEST(Artifact, WorkspaceConstantsAndHooks) {
  LoadedArtifact art(two_kernel_module());
  std::vector<float> x(kN), y(kN, 0.0f);
  for (int64_t k = 0; k < kN; ++k) x[k] = float(k) - 7.0f;
  alignas(64) uint8_t workspace[256];
  for (bool threaded : {false, true}) {
    ServiceStats stats;
    IngotServices s = make_services(&stats, threaded, /*hooks=*/true);
    void* in[] = {x.data()};
    void* out[] = {y.data()};
    ASSERT_EQ(art->entry(&s, in, out, workspace, nullptr), 0);
    for (int64_t k = 0; k < kN; ++k)
      EXPECT_EQ(y[k], x[k] * (0.5f * float(k)) + (100.0f - float(k))) << k;
    EXPECT_EQ(stats.begun, (std::vector<int>{0, 1}));
    EXPECT_EQ(stats.ended, (std::vector<int>{0, 1}));
    EXPECT_EQ(stats.launches, 1);
  }
}

int32_t failing_parallel_for(void*, IngotParallelBody, void*, int64_t) {
  return 7;
}

TEST(Artifact, NonZeroStatusStopsTheRun) {
  LoadedArtifact art(two_kernel_module());
  std::vector<float> x(kN, 1.0f), y(kN, -1.0f);
  alignas(64) uint8_t workspace[256];
  ServiceStats stats;
  IngotServices s = make_services(&stats, false, true);
  s.parallel_for = failing_parallel_for;
  void* in[] = {x.data()};
  void* out[] = {y.data()};
  EXPECT_EQ(art->entry(&s, in, out, workspace, nullptr), 7);
  EXPECT_EQ(stats.begun, (std::vector<int>{0}));  // kernel 1 never started
  EXPECT_EQ(y[0], -1.0f);
}

TEST(Artifact, ExportsOnlyTheRecordAndImportsOnlyLibcLibm) {
  LoadedArtifact art(two_kernel_module());
  ElfInfo elf = read_elf(art.path());
  EXPECT_EQ(elf.machine, EM_X86_64);
  EXPECT_EQ(elf.defined_globals, (std::vector<std::string>{"ingot_artifact_v1"}));
  void* libm = dlopen("libm.so.6", RTLD_NOW | RTLD_NOLOAD);
  for (const std::string& u : elf.undefined) {
    EXPECT_TRUE(dlsym(RTLD_DEFAULT, u.c_str()) || (libm && dlsym(libm, u.c_str())))
        << "undefined symbol " << u;
  }
  if (std::filesystem::exists("/lib/x86_64-linux-gnu/libm.so.6")) {
    EXPECT_NE(std::find(elf.needed.begin(), elf.needed.end(), "libm.so.6"), elf.needed.end());
  }
  if (libm) dlclose(libm);
}

TEST(Artifact, MathKernelImportsResolve) {
  // sin/pow/fmod become libm calls: they must resolve when the artifact is dlopened.
  Buffer x = make_buffer("X", DataType::f32(), {4});
  Buffer y = make_buffer("Y", DataType::f32(), {4});
  Var i("i");
  Stmt body = For::make(i, i64(0), i64(4), ForKind::kSerial,
                        BufferStore::make(y,
                                          tir::pow(call(Intrinsic::sin, {x(i)}), f32(2)) +
                                              call(Intrinsic::fmod, {x(i), f32(1.5)}),
                                          {i}));
  LoadedArtifact art(single_kernel_module("mathimports", {x, y}, body, 1));
  ElfInfo elf = read_elf(art.path());
  EXPECT_FALSE(elf.undefined.empty());
  std::vector<float> xs = {0.1f, 1.0f, 2.0f, 3.0f}, ys(4);
  ASSERT_EQ(art.run({xs.data()}, {ys.data()}), 0);
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(ys[k], std::pow(std::sin(xs[k]), 2.0f) + std::fmod(xs[k], 1.5f), 1e-6);
}

TEST(Artifact, LlvmIrDumpIsOptimizedAndVectorized) {
  std::string ir = emit_llvm_ir(two_kernel_module(), Target::parse("llvm -mcpu=skylake-avx512"));
  EXPECT_NE(ir.find("@ingot_artifact_v1 = "), std::string::npos);
  EXPECT_NE(ir.find("@constants = internal"), std::string::npos);
  EXPECT_NE(ir.find("x float>"), std::string::npos);  // the vectorized loop
  EXPECT_NE(ir.find("@scale_par0"), std::string::npos);
}

TEST(Artifact, ParallelBodiesKnowTheirBuffersApart) {
  // Y[i, l] = X[i, l] * 2 under a parallel loop over i: the buffer pointers reach the outlined
  // body through its closure, but the body (<kernel>_par0_body, inlined) keeps the kernel's
  // noalias, so LLVM knows X and Y apart there.
  IRModule m;
  m.model_name = "par";
  Buffer x = make_buffer("X", DataType::f32(), {64, 100});
  Buffer y = make_buffer("Y", DataType::f32(), {64, 100});
  Var i("i"), l("l");
  Stmt inner = For::make(l, i64(0), i64(100), ForKind::kVectorized,
                         BufferStore::make(y, x(i, l) * make_const(DataType::f32(), 2), {i, l}));
  m.kernels.push_back(
      PrimFunc{"twice", {x, y}, For::make(i, i64(0), i64(64), ForKind::kParallel, inner)});
  m.inputs.push_back(TensorDesc{"x", DataType::f32(), {64, 100}, {"", ""}});
  m.outputs.push_back(TensorDesc{"y", DataType::f32(), {64, 100}, {"", ""}});
  m.entry.push_back(KernelCall{0, {{ArgRef::kInput, 0}, {ArgRef::kOutput, 0}}});
  std::string ir = emit_llvm_ir(m, Target::parse("llvm -mcpu=skylake-avx512"));
  size_t at = ir.find("@twice_par0(");
  ASSERT_NE(at, std::string::npos) << ir;
  std::string body = ir.substr(at, ir.find("\n}", at) - at);
  EXPECT_NE(body.find("x float>"), std::string::npos) << body;  // vectorized
  // The inlined noalias parameters became scoped alias metadata on the body's accesses.
  EXPECT_NE(body.find("!alias.scope"), std::string::npos) << body;
  EXPECT_EQ(ir.find("define internal i32 @twice_par0_body"), std::string::npos);  // inlined
}

TEST(Artifact, CrossCompileToAarch64) {
  Target t = Target::parse("llvm -mtriple=aarch64-linux-gnu");
  auto obj = emit_object(two_kernel_module(), t);
  ASSERT_GT(obj.size(), 64u);
  EXPECT_EQ(reinterpret_cast<const Elf64_Ehdr*>(obj.data())->e_machine, EM_AARCH64);
  TempDir dir;
  link_shared_library(obj, t, dir.file("arm.so"));
  ElfInfo elf = read_elf(dir.file("arm.so"));
  EXPECT_EQ(elf.machine, EM_AARCH64);
  EXPECT_EQ(elf.defined_globals, (std::vector<std::string>{"ingot_artifact_v1"}));
}

TEST(Link, UnwritablePathIsAUserErrorAndLeavesNothing) {
  auto obj = emit_object(two_kernel_module(), Target::host());
  TempDir dir;
  std::string bad = dir.file("no-such-dir/model.so");
  try {
    link_shared_library(obj, Target::host(), bad);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(bad));
  // A path whose parent is a regular file.
  std::ofstream(dir.file("plain")) << "x";
  EXPECT_THROW(link_shared_library(obj, Target::host(), dir.file("plain/model.so")), UserError);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);  // only "plain": no temp files left behind
}

TEST(Link, GarbageObjectIsAUserErrorAndLeavesNothing) {
  TempDir dir;
  std::vector<uint8_t> junk(100, 0x42);
  EXPECT_THROW(link_shared_library(junk, Target::host(), dir.file("junk.so")), UserError);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            0);
  // The linker still works afterwards.
  auto obj = emit_object(two_kernel_module(), Target::host());
  link_shared_library(obj, Target::host(), dir.file("ok.so"));
  EXPECT_TRUE(std::filesystem::exists(dir.file("ok.so")));
}

TEST(Link, RepeatedAndConcurrentLinksInOneProcess) {
  auto obj = emit_object(two_kernel_module(), Target::host());
  TempDir dir;
  for (int k = 0; k < 3; ++k) link_shared_library(obj, Target::host(), dir.file("same.so"));
  std::vector<std::thread> threads;
  for (int k = 0; k < 3; ++k)
    threads.emplace_back(
        [&, k] { link_shared_library(obj, Target::host(), dir.file(fmt::format("t{}.so", k))); });
  for (auto& t : threads) t.join();
  for (const char* name : {"same.so", "t0.so", "t1.so", "t2.so"}) {
    void* h = dlopen(dir.file(name).c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << name << ": " << dlerror();
    auto* r = static_cast<const IngotArtifact*>(dlsym(h, INGOT_ARTIFACT_SYMBOL));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->magic, INGOT_ARTIFACT_MAGIC);
    dlclose(h);
  }
}

TEST(Artifact, LargeConstantsAreEmbedded) {
  // 8 MB of constants: Y[i] = C[i * 4099 % n] for a few probes.
  const int64_t n = 2 << 20;
  IRModule m;
  m.model_name = "bigconst";
  Buffer c = make_buffer("C", DataType::f32(), {n});
  Buffer y = make_buffer("Y", DataType::f32(), {64});
  Var i("i");
  m.kernels.push_back(
      PrimFunc{"probe",
               {c, y},
               For::make(i, i64(0), i64(64), ForKind::kSerial,
                         BufferStore::make(y, c(floormod(i * 4099 * 7, i64(n))), {i})),
               0,
               0});
  m.constants.resize(n * 4);
  for (int64_t k = 0; k < n; ++k) {
    float v = float(k) * 0.25f;
    std::memcpy(&m.constants[k * 4], &v, 4);
  }
  m.outputs.push_back(TensorDesc{"y", DataType::f32(), {64}, {""}});
  m.entry.push_back(KernelCall{0, {{ArgRef::kConstant, 0}, {ArgRef::kOutput, 0}}});
  LoadedArtifact art(m);
  EXPECT_EQ(art->constant_bytes, uint64_t(n * 4));
  std::vector<float> ys(64);
  ASSERT_EQ(art.run({}, {ys.data()}), 0);
  for (int64_t k = 0; k < 64; ++k) EXPECT_EQ(ys[k], float((k * 4099 * 7) % n) * 0.25f) << k;
}

}  // namespace
}  // namespace ingot::codegen::test
