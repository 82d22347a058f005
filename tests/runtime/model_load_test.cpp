// Loading artifacts: the record's metadata is exposed as written, and every way a file can fail
// to be an artifact gives a one-line error naming the file and the reason, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "ingot/runtime.h"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;
using ingot::testing::load_error;
using ingot::testing::temp_file;
namespace fs = std::filesystem;

TEST(ModelLoad, ExposesRecordMetadata) {
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_affine").c_str(), &model), INGOT_OK)
      << ingot_last_error();
  EXPECT_EQ(ingot_model_num_inputs(model), 2);
  EXPECT_EQ(ingot_model_num_outputs(model), 2);
  const IngotTensorInfo* x = ingot_model_input_info(model, 0);
  ASSERT_NE(x, nullptr);
  EXPECT_STREQ(x->name, "x");
  EXPECT_EQ(x->dtype.code, 2);
  EXPECT_EQ(x->dtype.bits, 32);
  ASSERT_EQ(x->ndim, 2);
  EXPECT_EQ(x->shape[0], 2);
  EXPECT_EQ(x->shape[1], 3);
  EXPECT_STREQ(x->dim_names[0], "N");
  const IngotTensorInfo* count = ingot_model_output_info(model, 1);
  ASSERT_NE(count, nullptr);
  EXPECT_STREQ(count->name, "count");
  EXPECT_EQ(count->dtype.code, 0);
  EXPECT_EQ(count->dtype.bits, 64);
  EXPECT_EQ(ingot_model_find_input(model, "bias"), 1);
  EXPECT_EQ(ingot_model_find_input(model, "y"), -1);
  EXPECT_EQ(ingot_model_find_output(model, "y"), 0);
  const IngotArtifact* a = ingot_model_artifact(model);
  EXPECT_STREQ(a->model_name, "fake_affine");
  EXPECT_EQ(a->workspace_bytes, 64u);
  EXPECT_EQ(a->num_kernels, 2);
  ingot_model_free(model);
}

TEST(ModelLoad, InfoIndexOutOfRange) {
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_affine").c_str(), &model), INGOT_OK);
  EXPECT_EQ(ingot_model_input_info(model, 2), nullptr);
  EXPECT_STREQ(ingot_last_error(), "input index 2 out of range [0, 2)");
  EXPECT_EQ(ingot_model_output_info(model, -1), nullptr);
  EXPECT_STREQ(ingot_last_error(), "output index -1 out of range [0, 2)");
  ingot_model_free(model);
}

TEST(ModelLoad, TwoModelsLoadSideBySide) {
  IngotModel* a = nullptr;
  IngotModel* b = nullptr;
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_affine").c_str(), &a), INGOT_OK);
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_pool").c_str(), &b), INGOT_OK);
  EXPECT_STREQ(ingot_model_artifact(a)->model_name, "fake_affine");
  EXPECT_STREQ(ingot_model_artifact(b)->model_name, "fake_pool");
  ingot_model_free(a);
  ingot_model_free(b);
}

// Regression: a bare file name ("model.so") is the file in the current folder, not a library
// searched for on the loader's path.
TEST(ModelLoad, BareFileNameLoadsFromCurrentFolder) {
  fs::path old = fs::current_path();
  fs::current_path(INGOT_FAKE_ARTIFACT_DIR);
  IngotModel* m = nullptr;
  ingot_status st = ingot_model_load("fake_affine.so", &m);
  fs::current_path(old);
  ASSERT_EQ(st, INGOT_OK) << ingot_last_error();
  EXPECT_STREQ(ingot_model_artifact(m)->model_name, "fake_affine");
  ingot_model_free(m);
}

TEST(ModelLoadError, MissingFile) {
  std::string path = "/nonexistent/dir/model.so";
  EXPECT_EQ(load_error(path),
            "cannot open artifact '/nonexistent/dir/model.so': No such file or directory");
}

TEST(ModelLoadError, Directory) {
  std::string dir = fs::temp_directory_path().string();
  EXPECT_EQ(load_error(dir), "cannot open artifact '" + dir + "': not a regular file");
}

TEST(ModelLoadError, TextFileRenamedSo) {
  fs::path p = temp_file("text.so");
  std::ofstream(p) << "this is not a shared library\n";
  EXPECT_EQ(load_error(p.string()),
            "artifact '" + p.string() + "' is not a shared library (no ELF header)");
}

TEST(ModelLoadError, EmptyFile) {
  fs::path p = temp_file("empty.so");
  std::ofstream(p).close();
  EXPECT_EQ(load_error(p.string()),
            "artifact '" + p.string() + "' is not a shared library (no ELF header)");
}

TEST(ModelLoadError, TruncatedArtifact) {
  fs::path p = temp_file("truncated.so");
  fs::copy_file(fake_artifact("fake_affine"), p, fs::copy_options::overwrite_existing);
  auto full = fs::file_size(p);
  for (auto size : {full / 2, uintmax_t{100}}) {
    fs::resize_file(p, size);
    std::string msg = load_error(p.string());
    EXPECT_EQ(msg.rfind("artifact '" + p.string() + "' is truncated or corrupt: file has " +
                            std::to_string(size) + " bytes",
                        0),
              0u)
        << msg;
  }
  // Short of its last byte, the ELF image is whole but the checksum trailer is gone.
  fs::copy_file(fake_artifact("fake_affine"), p, fs::copy_options::overwrite_existing);
  fs::resize_file(p, full - 1);
  EXPECT_EQ(
      load_error(p.string())
          .rfind("artifact '" + p.string() + "' has no ingot checksum trailer: it was cut short",
                 0),
      0u);
}

TEST(ModelLoadError, ExecutableIsNotASharedLibrary) {
  // An ELF executable (ET_EXEC or PIE) that is not an artifact: /bin/sh is PIE (ET_DYN) on most
  // systems, so it must fail on the missing symbol instead; either way it is refused.
  std::string msg = load_error("/bin/true");
  EXPECT_NE(msg.find("'/bin/true'"), std::string::npos) << msg;
}

TEST(ModelLoadError, NoIngotSymbol) {
  std::string p = fake_artifact("fake_affine_no_symbol");
  EXPECT_EQ(load_error(p), "artifact '" + p +
                               "' does not export the symbol 'ingot_artifact_v1': not an ingot "
                               "artifact");
}

TEST(ModelLoadError, ValidSharedLibraryWithoutTrailer) {
  std::string p = INGOT_RUNTIME_LIB;  // the runtime itself is a .so but not an artifact
  EXPECT_EQ(load_error(p), "artifact '" + p +
                               "' has no ingot checksum trailer: it was cut short, changed after "
                               "it was built (strip, objcopy), or built by an ingot older than "
                               "ABI version 5");
}

TEST(ModelLoadError, WrongMagic) {
  std::string p = fake_artifact("fake_affine_bad_magic");
  EXPECT_EQ(load_error(p), "artifact '" + p +
                               "' has bad magic 0x0000000000001234 (expected 0x545241544f474e49): "
                               "not an ingot artifact or corrupt");
}

TEST(ModelLoadError, WrongAbiVersion) {
  std::string p = fake_artifact("fake_affine_abi1");
  EXPECT_EQ(load_error(p), "artifact '" + p +
                               "' was built for ingot ABI version 1, this runtime supports "
                               "version 9");
}

TEST(ModelLoadError, IsaFeatureTheRuntimeCannotTest) {
  // A requirement naming a feature this runtime has no CPUID/HWCAP test for is refused, not
  // ignored: the code may use it.
  std::string p = fake_artifact("fake_affine_isa_unknown");
  EXPECT_EQ(load_error(p), "artifact '" + p +
                               "' needs CPU features this runtime cannot check (no-such-isa): it "
                               "was built for another architecture or by a newer ingot");
}

TEST(CpuFeatures, NamesAreAnsweredFromTheCpu) {
  EXPECT_EQ(ingot_cpu_supports("no-such-isa"), -1);
  EXPECT_EQ(ingot_cpu_supports(nullptr), -1);
  std::string list = ingot_cpu_features();
#if defined(__x86_64__)
  // x86-64 baseline machines this project runs on all have SSE3; the list is comma-separated.
  EXPECT_EQ(ingot_cpu_supports("sse3"), 1);
  EXPECT_EQ(list.rfind("sse3", 0), 0u) << list;
  EXPECT_NE(ingot_cpu_supports("avx512f"), -1);
  // Dependent features never appear without their base (the OS-state check covers both).
  if (ingot_cpu_supports("avx512bw") == 1) {
    EXPECT_EQ(ingot_cpu_supports("avx512f"), 1);
  }
  if (ingot_cpu_supports("avx2") == 1) {
    EXPECT_EQ(ingot_cpu_supports("avx"), 1);
  }
#endif
  EXPECT_EQ(list.find(",,"), std::string::npos);
}

TEST(ModelLoadError, SpecializedValueOnAnOutput) {
  // Only inputs can be specialised; a value on an output means a corrupt table.
  std::string p = fake_artifact("fake_affine_specialized_output");
  EXPECT_EQ(load_error(p), "artifact '" + p + "' is corrupt: output 'y' has a specialised value");
}

TEST(ModelLoadError, RecordTooSmall) {
  std::string p = fake_artifact("fake_affine_small_record");
  std::string msg = load_error(p);
  EXPECT_EQ(msg.rfind("artifact '" + p + "' is corrupt: record size 16 is smaller than ", 0), 0u)
      << msg;
}

TEST(ModelLoadError, DeviceTypeTheRuntimeDoesNotRun) {
  // Vulkan (DLPack device type 7): loads for inspection, refused to run.
  std::string p = fake_artifact("fake_affine_vulkan");
  EXPECT_EQ(load_error(p), "artifact '" + p +
                               "' targets device type 7; this runtime runs CPU (1), CUDA (2) and "
                               "OpenCL (4) artifacts");
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load_for_inspection(p.c_str(), &model), INGOT_OK);
  IngotSession* session = nullptr;
  EXPECT_EQ(ingot_session_create(model, &session), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(),
               "model 'fake_affine' was loaded for inspection: its device code was not built");
  ingot_model_free(model);
}

TEST(ModelLoadError, CudaArtifactWithoutDeviceCode) {
  std::string p = fake_artifact("fake_affine_cuda");
  EXPECT_EQ(load_error(p), "artifact '" + p + "' is corrupt: invalid device code");
}

TEST(ModelLoadError, OpenClArtifactWithoutDeviceCode) {
  std::string p = fake_artifact("fake_affine_opencl_no_code");
  EXPECT_EQ(load_error(p), "artifact '" + p + "' is corrupt: invalid device code");
}

TEST(ModelLoadError, NullArguments) {
  EXPECT_EQ(ingot_model_load("x.so", nullptr), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "ingot_model_load: out is NULL");
  IngotModel* m = nullptr;
  EXPECT_EQ(ingot_model_load(nullptr, &m), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "ingot_model_load: path is NULL");
}

TEST(ModelLoadError, LastErrorIsPerThread) {
  load_error("/nonexistent.so");
  std::string other;
  std::thread([&] { other = ingot_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(ingot_last_error()), "");
}

}  // namespace
