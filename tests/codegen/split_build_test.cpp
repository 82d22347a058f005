// Split builds (build_shared_library): each kernel its own object compiled on a pool of threads,
// the entry and record in another, the constant blob in a data object written without LLVM. The
// artifact must compute what the one-module build computes (checked against the closed form),
// export only the record, and report each kernel once.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>

#include "codegen/artifact_util.h"
#include "codegen/elf_data_object.h"
#include "codegen/elf_reader.h"
#include "codegen/link.h"
#include "codegen/llvm/codegen_llvm.h"

namespace ingot::codegen::test {
namespace {

using namespace ingot::tir;

constexpr int64_t kN = 40;
constexpr int kKernels = 5;

float weight(int k, int64_t i) {
  return 0.25f * float(k + 1) + 0.01f * float(i);
}

// y = (((x * w0) * w1) ...) * w4, one kernel per step, the w_k in the constant blob at
// 64-byte aligned offsets and the intermediates in the workspace.
IRModule chain_module() {
  IRModule m;
  m.model_name = "chain";
  Var i("i");
  const int64_t stride = 192;  // kN * 4 = 160, rounded up to 64
  m.constants.resize(size_t(stride * kKernels));
  for (int k = 0; k < kKernels; ++k) {
    Buffer in = make_buffer("In", DataType::f32(), {kN});
    Buffer w = make_buffer("W", DataType::f32(), {kN});
    Buffer out = make_buffer("Out", DataType::f32(), {kN});
    ForKind kind = k % 2 ? ForKind::kVectorized : ForKind::kParallel;
    m.kernels.push_back(
        PrimFunc{"step" + std::to_string(k),
                 {in, w, out},
                 For::make(i, i64(0), i64(kN), kind, BufferStore::make(out, in(i)*w(i), {i})),
                 double(kN),
                 12.0 * kN});
    for (int64_t e = 0; e < kN; ++e) {
      float v = weight(k, e);
      std::memcpy(&m.constants[size_t(stride * k + e * 4)], &v, 4);
    }
    ArgRef src = k == 0 ? ArgRef{ArgRef::kInput, 0} : ArgRef{ArgRef::kWorkspace, (k - 1) % 2 * 192};
    ArgRef dst =
        k == kKernels - 1 ? ArgRef{ArgRef::kOutput, 0} : ArgRef{ArgRef::kWorkspace, k % 2 * 192};
    m.entry.push_back(KernelCall{k, {src, {ArgRef::kConstant, stride * k}, dst}});
  }
  m.inputs.push_back(TensorDesc{"x", DataType::f32(), {kN}, {""}});
  m.outputs.push_back(TensorDesc{"y", DataType::f32(), {kN}, {""}});
  m.workspace_bytes = 384;
  return m;
}

std::vector<float> expected_chain(const std::vector<float>& x) {
  std::vector<float> y = x;
  for (int k = 0; k < kKernels; ++k)
    for (int64_t e = 0; e < kN; ++e) y[size_t(e)] *= weight(k, e);
  return y;
}

std::vector<float> run_library(const std::string& path, const std::vector<float>& x) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror();
  if (!h) return {};
  auto* art = static_cast<const IngotArtifact*>(dlsym(h, INGOT_ARTIFACT_SYMBOL));
  std::vector<float> in = x, y(static_cast<size_t>(kN)), ws(96);
  std::vector<void*> ins = {in.data()}, outs = {y.data()};
  ServiceStats stats;
  IngotServices s = make_services(&stats, /*threaded=*/true);
  EXPECT_EQ(art->entry(&s, ins.data(), outs.data(), ws.data(), nullptr), 0);
  EXPECT_EQ(art->constant_bytes, uint64_t(192 * kKernels));
  dlclose(h);
  return y;
}

std::vector<float> input() {
  std::vector<float> x(static_cast<size_t>(kN));
  for (int64_t e = 0; e < kN; ++e) x[size_t(e)] = 1.0f + 0.5f * float(e % 7) - float(e % 3);
  return x;
}

TEST(SplitBuild, SameNumbersAsTheOneModuleBuild) {
  IRModule m = chain_module();
  TempDir dir;
  // One module, one object.
  link_shared_library(emit_object(m, Target::host()), Target::host(), dir.file("one.so"));
  // Split over three threads.
  BuildOptions options;
  options.threads = 3;
  BuildStats stats = build_shared_library(m, Target::host(), dir.file("split.so"), options);
  EXPECT_EQ(stats.objects, kKernels + 2);  // kernels, entry, constants
  EXPECT_EQ(stats.threads, 3);
  ASSERT_EQ(stats.kernels.size(), size_t(kKernels));
  for (int k = 0; k < kKernels; ++k) EXPECT_EQ(stats.kernels[k].name, m.kernels[k].name);

  std::vector<float> x = input(), want = expected_chain(x);
  std::vector<float> one = run_library(dir.file("one.so"), x);
  std::vector<float> split = run_library(dir.file("split.so"), x);
  ASSERT_EQ(split.size(), want.size());
  for (size_t e = 0; e < want.size(); ++e) {
    EXPECT_FLOAT_EQ(split[e], want[e]) << e;
    EXPECT_EQ(split[e], one[e]) << e;
  }
  // Kernels are hidden: the record is the only symbol exported.
  EXPECT_EQ(read_elf(dir.file("split.so")).defined_globals,
            std::vector<std::string>{INGOT_ARTIFACT_SYMBOL});
}

TEST(SplitBuild, EveryKernelReportedOnceInIncreasingCounts) {
  IRModule m = chain_module();
  TempDir dir;
  std::mutex mu;
  std::vector<std::pair<int, int>> calls;
  BuildOptions options;
  options.threads = 4;
  options.on_kernel = [&](int done, int total) {
    std::lock_guard<std::mutex> lock(mu);
    calls.emplace_back(done, total);
  };
  build_shared_library(m, Target::host(), dir.file("m.so"), options);
  ASSERT_EQ(calls.size(), size_t(kKernels));
  for (int k = 0; k < kKernels; ++k) EXPECT_EQ(calls[size_t(k)], std::make_pair(k + 1, kKernels));
}

TEST(SplitBuild, NoConstantsNoDataObject) {
  IRModule m = chain_module();
  // Every weight read from the input instead: the blob is empty.
  for (KernelCall& c : m.entry) c.args[1] = ArgRef{ArgRef::kInput, 0};
  m.constants.clear();
  TempDir dir;
  BuildStats stats = build_shared_library(m, Target::host(), dir.file("m.so"));
  EXPECT_EQ(stats.objects, kKernels + 1);
  LoadedArtifact art(m);
  std::vector<float> x = input(), y(static_cast<size_t>(kN)), ws(96);
  ASSERT_EQ(art.run({x.data()}, {y.data()}, ws.data()), 0);
  for (size_t e = 0; e < x.size(); ++e) {
    float want = x[e];
    for (int k = 0; k < kKernels; ++k) want *= x[e];
    EXPECT_FLOAT_EQ(y[e], want) << e;
  }
}

TEST(ElfDataObject, OneAlignedReadOnlySectionAndOneHiddenSymbol) {
  TempDir dir;
  std::vector<uint8_t> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 13 + 5);
  write_elf_data_object(dir.file("d.o"), data, "blob", 64, EM_AARCH64);
  std::ifstream f(dir.file("d.o"), std::ios::binary);
  std::vector<char> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_GE(d.size(), sizeof(Elf64_Ehdr));
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(d.data());
  EXPECT_EQ(std::memcmp(eh->e_ident, ELFMAG, SELFMAG), 0);
  EXPECT_EQ(eh->e_type, ET_REL);
  EXPECT_EQ(eh->e_machine, EM_AARCH64);
  ASSERT_EQ(eh->e_shnum, 5);
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(d.data() + eh->e_shoff);
  const char* names = d.data() + sh[eh->e_shstrndx].sh_offset;
  EXPECT_STREQ(names + sh[1].sh_name, ".rodata.blob");
  EXPECT_EQ(sh[1].sh_type, uint32_t(SHT_PROGBITS));
  EXPECT_EQ(sh[1].sh_flags, uint64_t(SHF_ALLOC));  // read-only, not executable
  EXPECT_EQ(sh[1].sh_addralign, 64u);
  EXPECT_EQ(sh[1].sh_offset % 64, 0u);
  ASSERT_EQ(sh[1].sh_size, data.size());
  EXPECT_EQ(std::memcmp(d.data() + sh[1].sh_offset, data.data(), data.size()), 0);
  ASSERT_EQ(sh[2].sh_type, uint32_t(SHT_SYMTAB));
  const auto* sym = reinterpret_cast<const Elf64_Sym*>(d.data() + sh[2].sh_offset);
  const char* strs = d.data() + sh[sh[2].sh_link].sh_offset;
  EXPECT_STREQ(strs + sym[1].st_name, "blob");
  EXPECT_EQ(ELF64_ST_BIND(sym[1].st_info), STB_GLOBAL);
  EXPECT_EQ(ELF64_ST_TYPE(sym[1].st_info), STT_OBJECT);
  EXPECT_EQ(ELF64_ST_VISIBILITY(sym[1].st_other), STV_HIDDEN);
  EXPECT_EQ(sym[1].st_shndx, 1);
  EXPECT_EQ(sym[1].st_size, data.size());
}

}  // namespace
}  // namespace ingot::codegen::test
