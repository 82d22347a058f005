// Constant folding compiles for the host whatever the compile target: a model whose constant
// MatMul -> Transpose -> Add chain feeds a run-time Mul is compiled for a target other than the
// host, and the artifact's numbers are checked against the closed form. For an AArch64 target
// the artifact cannot even run here, so folding with the compile target would fail to load its
// own library.
#include <gtest/gtest.h>

#include <fstream>

#include "codegen/target.h"
#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"
#include "support/error.h"

namespace ingot::testing {
namespace {

// y = x * (Transpose(a . b) + c), a: [2, 3], b: [3, 2], x and c: [2, 2].
const std::vector<float> kA = {1, 2, 3, 4, 5, 6}, kB = {1, -1, 2, 0, 0, 3},
                         kC = {0.5f, -0.5f, 1.5f, 2.5f};

std::string write_model(const std::filesystem::path& dir) {
  OnnxModelBuilder b;
  b.input("x", {2, 2});
  b.output("y");
  b.initializer("a", {2, 3}, kA);
  b.initializer("b", {3, 2}, kB);
  b.initializer("c", {2, 2}, kC);
  b.node("MatMul", {"a", "b"}, {"m"}, "mm");
  b.node("Transpose", {"m"}, {"t"}, "tr");
  b.node("Add", {"t", "c"}, {"s"}, "add");
  b.node("Mul", {"x", "s"}, {"y"}, "mul");
  std::string path = (dir / "folded_chain.onnx").string();
  b.save(path);
  return path;
}

std::vector<float> expected(const std::vector<float>& x) {
  float ab[2][2] = {};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) ab[i][j] += kA[i * 3 + k] * kB[k * 2 + j];
  std::vector<float> y(4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) y[i * 2 + j] = x[i * 2 + j] * (ab[j][i] + kC[i * 2 + j]);
  return y;
}

TEST(FoldHostTarget, GenericX86TargetFoldsWithHostCodeAndGivesTheClosedForm) {
  auto dir = temp_dir("fold_host_x86");
  driver::CompileOptions opts;
  opts.target = "llvm -mcpu=x86-64";
  std::ostringstream dump;
  driver::CompileReport r =
      driver::compile_model(write_model(dir), (dir / "m.so").string(), opts, dump);
  EXPECT_EQ(r.folded_nodes, 3);
  EXPECT_EQ(r.fold_batches, 1);
  EXPECT_EQ(r.fold_modules, 1);
  EXPECT_EQ(r.num_kernels, 1);  // only the Mul is left
  EXPECT_EQ(r.fold_target, codegen::Target::host().str());
  EXPECT_NE(r.fold_target, r.target);
  EXPECT_NE(r.target.find("-mcpu=x86-64"), std::string::npos) << r.target;

  CompiledModel m(write_model(dir), (dir / "m2.so").string(), opts);
  std::vector<float> x = {1, -2, 0.25f, 3};
  m.set_input("x", x);
  m.run();
  std::vector<float> y = m.output(0);
  std::vector<float> want = expected(x);
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], want[i]) << i;
}

TEST(FoldHostTarget, AArch64TargetStillFoldsOnTheHost) {
  codegen::Target arm;
  try {
    arm = codegen::Target::parse("llvm -mtriple=aarch64-linux-gnu");
  } catch (const UserError& e) {
    GTEST_SKIP() << "no AArch64 target in this build: " << e.what();
  }
  auto dir = temp_dir("fold_host_arm");
  driver::CompileOptions opts;
  opts.target = "llvm -mtriple=aarch64-linux-gnu";
  std::ostringstream dump;
  std::string out = (dir / "m.so").string();
  driver::CompileReport r = driver::compile_model(write_model(dir), out, opts, dump);
  EXPECT_EQ(r.folded_nodes, 3);
  EXPECT_EQ(r.fold_target, codegen::Target::host().str());
  // The artifact itself is AArch64 (ELF e_machine 183 at offset 18).
  std::ifstream f(out, std::ios::binary);
  unsigned char h[20] = {};
  ASSERT_TRUE(f.read(reinterpret_cast<char*>(h), sizeof(h)));
  EXPECT_EQ(h[18] | (h[19] << 8), 183);
}

}  // namespace
}  // namespace ingot::testing
