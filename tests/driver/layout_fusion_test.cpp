// Channel-blocked layouts inside fused kernels: the layout conversions (LayoutToBlocked /
// LayoutFromBlocked, lower/compute/layout.cpp) are block-form computes a fused reader inlines
// (compute_inline), so a LayerNormalization over the channels of a convolution's NCHWc output
// (ConvNeXt's Conv -> Transpose -> LayerNormalization) reads the blocked tensor directly, in
// runs of contiguous channels: no plain copy of the conv output is written, the reductions
// split into vector lanes and the write pass runs in vector strips. Checked against plain
// reference loops with AVX2 code (and AVX-512 code where the host has it), with whole channel
// blocks and with a padded last block; and two conversions between blocked layouts (16 lanes to
// 8 for a grouped conv) fused into one lane-vector copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <regex>
#include <sstream>

#include "codegen/target.h"
#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"

namespace ingot::testing {
namespace {

constexpr int64_t kIn = 8, kH = 5, kW = 6;

// The kernel of `tir` (a --dump tir listing) whose name ends with `suffix`: its text.
std::string kernel_text(const std::string& tir, const std::string& suffix) {
  std::istringstream in(tir);
  std::string line, text;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.starts_with("def ")) inside = line.find(suffix + "(") != std::string::npos;
    if (inside) text += line + "\n";
  }
  return text;
}

// The final loop IR (--dump tir) of dir/m.onnx compiled with `opts`.
std::string final_tir(const std::filesystem::path& dir, driver::CompileOptions opts) {
  std::ostringstream dump;
  opts.dump = {"tir"};
  driver::compile_model((dir / "m.onnx").string(), (dir / "dump.so").string(), opts, dump);
  return dump.str();
}

// y = LayerNormalization(Transpose(Conv1x1(x, w, b), 0231), scale, bias) over c channels.
// run = false: the structure only (a target the host cannot run).
void expect_fused_layer_norm(int64_t c, const std::string& target, bool run = true) {
  SCOPED_TRACE(::testing::Message() << c << " channels, target " << target);
  auto x = random_vector(size_t(kIn * kH * kW), 1), w = random_vector(size_t(c * kIn), 2),
       b = random_vector(size_t(c), 3), scale = random_vector(size_t(c), 4),
       bias = random_vector(size_t(c), 5);
  OnnxModelBuilder mb(17);
  mb.input("x", {1, kIn, kH, kW});
  mb.initializer("w", {c, kIn, 1, 1}, w);
  mb.initializer("b", {c}, b);
  mb.initializer("scale", {c}, scale);
  mb.initializer("bias", {c}, bias);
  mb.node("Conv", {"x", "w", "b"}, {"conv"}, "conv");
  OnnxModelBuilder::attr_ints(mb.node("Transpose", {"conv"}, {"nhwc"}, "permute"), "perm",
                              {0, 2, 3, 1});
  auto* ln = mb.node("LayerNormalization", {"nhwc", "scale", "bias"}, {"y"}, "ln");
  OnnxModelBuilder::attr_int(ln, "axis", -1);
  OnnxModelBuilder::attr_float(ln, "epsilon", 1e-5f);
  mb.output("y");
  auto dir = temp_dir("layout_fusion");
  mb.save(dir / "m.onnx");
  driver::CompileOptions opts;
  opts.target = target;
  // The structure: the LayerNormalization kernel reads the conv's blocked output and no plain
  // [1, c, H, W] copy of it; its reductions and write pass are vector accesses.
  std::string tir = final_tir(dir, opts);
  std::string ln_kernel = kernel_text(tir, "_LayerNormalization");
  ASSERT_FALSE(ln_kernel.empty()) << tir;
  std::string first = ln_kernel.substr(0, ln_kernel.find('\n'));
  EXPECT_TRUE(std::regex_search(first, std::regex(R"(_nchwc: float32\[1, \d+, 5, 6, \d+\])")))
      << first;
  EXPECT_EQ(first.find("float32[1, " + std::to_string(c) + ", 5, 6]"), std::string::npos) << first;
  EXPECT_NE(ln_kernel.find("mean_rf[ramp("), std::string::npos) << ln_kernel;
  EXPECT_NE(ln_kernel.find("y[ramp("), std::string::npos) << ln_kernel;

  if (!run) return;
  CompiledModel m(dir / "m.onnx", dir / "m.so", opts);
  m.set_input("x", x);
  m.run();
  std::vector<int64_t> shape;
  auto got = m.output(0, &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{1, kH, kW, c}));
  ASSERT_EQ(got.size(), size_t(kH * kW * c));
  for (int64_t h = 0; h < kH; ++h)
    for (int64_t p = 0; p < kW; ++p) {
      std::vector<double> v(static_cast<size_t>(c));
      double mean = 0, var = 0;
      for (int64_t o = 0; o < c; ++o) {
        double acc = b[size_t(o)];
        for (int64_t i = 0; i < kIn; ++i)
          acc += double(w[size_t(o * kIn + i)]) * x[size_t((i * kH + h) * kW + p)];
        mean += (v[size_t(o)] = acc);
      }
      mean /= double(c);
      for (double e : v) var += (e - mean) * (e - mean);
      double inv = 1.0 / std::sqrt(var / double(c) + 1e-5);
      for (int64_t o = 0; o < c; ++o) {
        double want = (v[size_t(o)] - mean) * inv * scale[size_t(o)] + bias[size_t(o)];
        ASSERT_NEAR(got[size_t((h * kW + p) * c + o)], want, 1e-4) << h << "," << p << "," << o;
      }
    }
}

TEST(LayoutFusion, LayerNormReadsTheBlockedConvOutput) {
  if (!codegen::Target::host().is_x86()) GTEST_SKIP() << "x86 targets";
  // 48 channels: whole blocks (16 with AVX-512 code, 16 with AVX2: runs of 16 lanes);
  // 40: a padded last block (16 lanes) with AVX-512 code, blocks of one vector (8) with AVX2.
  // Both are compiled everywhere, and run where the host can.
  for (int64_t c : {48, 40})
    for (const char* t : {"llvm -mcpu=x86-64-v3", "llvm -mcpu=x86-64-v4"})
      expect_fused_layer_norm(c, t, host_runs(t));
}

TEST(LayoutFusion, ReblockingCopiesLaneVectors) {
  if (!codegen::Target::host().is_x86()) GTEST_SKIP() << "x86 targets";
  // x[1, 32, 6, 6] -> 1x1 Conv 32->64 -> 1x1 Conv with 8 groups of 8 channels. With AVX2 code
  // the first conv writes blocks of 16 channels and the grouped one reads blocks of 8: the two
  // conversions between them are one kernel that runs along the lanes (the contiguous-innermost
  // loop order), one 8-lane load and store per pixel, instead of a pass through NCHW.
  constexpr int64_t kC = 32, kO = 64, kG = 8, kP = 36;
  auto x = random_vector(size_t(kC * kP), 6), w1 = random_vector(size_t(kO * kC), 7),
       w2 = random_vector(size_t(kO * (kO / kG)), 8);
  OnnxModelBuilder mb;
  mb.input("x", {1, kC, 6, 6});
  mb.initializer("w1", {kO, kC, 1, 1}, w1);
  mb.initializer("w2", {kO, kO / kG, 1, 1}, w2);
  mb.node("Conv", {"x", "w1"}, {"y"}, "c1");
  OnnxModelBuilder::attr_int(mb.node("Conv", {"y", "w2"}, {"z"}, "c2"), "group", kG);
  mb.output("z");
  auto dir = temp_dir("layout_reblock");
  mb.save(dir / "m.onnx");
  driver::CompileOptions opts;
  opts.target = "llvm -mcpu=x86-64-v3";
  std::string tir = final_tir(dir, opts);
  std::string reblock = kernel_text(tir, "y_to_nchwc_LayoutToBlocked");
  ASSERT_FALSE(reblock.empty()) << tir;
  EXPECT_NE(reblock.find("y_nchwc: float32[1, 4, 6, 6, 16]"), std::string::npos) << reblock;
  EXPECT_TRUE(std::regex_search(reblock, std::regex(R"(\[ramp\([^\]]*, 1, 8\)\] = y_nchwc\[ramp)")))
      << reblock;

  if (!host_runs(opts.target)) GTEST_SKIP() << "the host cannot run " << opts.target;
  CompiledModel m(dir / "m.onnx", dir / "m.so", opts);
  m.set_input("x", x);
  m.run();
  auto got = m.output(0);
  ASSERT_EQ(got.size(), size_t(kO * kP));
  for (int64_t o = 0; o < kO; ++o)
    for (int64_t p = 0; p < kP; ++p) {
      double want = 0;
      int64_t g0 = o / (kO / kG) * (kO / kG);  // the group's first channel
      for (int64_t i = 0; i < kO / kG; ++i) {
        double y = 0;
        for (int64_t c = 0; c < kC; ++c)
          y += double(w1[size_t((g0 + i) * kC + c)]) * x[size_t(c * kP + p)];
        want += double(w2[size_t(o * (kO / kG) + i)]) * y;
      }
      ASSERT_NEAR(got[size_t(o * kP + p)], want, 1e-3) << o << "," << p;
    }
}

}  // namespace
}  // namespace ingot::testing
