// Symbolic products over a constant B whose column count is not a multiple of the rule's column
// panels (the last one padded), and a tied embedding: a table read by a Gather and, transposed,
// by the LM-head MatMul is stored once, in the panels the product's rule lays it out in, which the
// Gather reads too. Checked against products computed here in double precision, at several
// sequence lengths of one artifact.
#include <gtest/gtest.h>

#include <ingot/runtime.hpp>

#include <cmath>

#include "driver/compile.h"
#include "driver/compiled_model.h"
#include "driver/dim_bounds.h"
#include "driver/onnx_model_builder.h"
#include "graph/transforms/pass_manager.h"

namespace ingot::testing {
namespace {

constexpr int64_t kVocab = 150, kWidth = 32, kCols = 200;

// ids [1, seq] -> e = Gather(W, ids) [1, seq, 32]; logits = MatMul(e, Transpose(W)) [1, seq, 150];
// z = Gemm(Reshape(e, [-1, 32]), V [32, 200], c [200]) [seq, 200].
std::string tied_model(const std::vector<float>& w, const std::vector<float>& v,
                       const std::vector<float>& c) {
  OnnxModelBuilder b(13);
  b.input("ids", {1, 0}, onnx::TensorProto::INT64, {"", "seq"});
  b.initializer("W", {kVocab, kWidth}, w);
  b.initializer("V", {kWidth, kCols}, v);
  b.initializer("c", {kCols}, c);
  b.initializer_i64("rows", {2}, {-1, kWidth});
  b.node("Gather", {"W", "ids"}, {"e"});
  OnnxModelBuilder::attr_ints(b.node("Transpose", {"W"}, {"wt"}), "perm", {1, 0});
  b.node("MatMul", {"e", "wt"}, {"logits"});
  b.node("Reshape", {"e", "rows"}, {"e2"});
  b.node("Gemm", {"e2", "V", "c"}, {"z"});
  b.output("logits");
  b.output("z");
  std::string path = (temp_dir("tied") / "tied.onnx").string();
  b.save(path);
  return path;
}

TEST(TiedEmbedding, GatherAndPaddedBlockedProductsMatchAReference) {
  std::vector<float> w = random_vector(kVocab * kWidth, 1), v = random_vector(kWidth * kCols, 2),
                     c = random_vector(kCols, 3);
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..16");
  // A real vocabulary's table (GPT-2: 38.6M elements) is past constant folding's 16M-element
  // limit, so its Transpose stays and folds into the MatMul; this small one would be folded into
  // a second, transposed constant without this.
  o.disabled_passes = {graph::kFoldConstantsPass};
  std::string so = (temp_dir("tied") / "tied.so").string();
  std::ostringstream dump;
  driver::compile_model(tied_model(w, v, c), so, o, dump);
  rt::Model model(so);
  // The table is stored once: the LM head's rule lays it out in column panels and the Gather
  // reads the same panels (schedule/rules/shared_constant_layouts.h). Twice, the constants would
  // hold at least the table, its panels, V and c.
  EXPECT_LT(model.artifact().constant_bytes,
            uint64_t((2 * kVocab * kWidth + (kWidth + 1) * kCols) * sizeof(float)));
  rt::Session s(model);
  for (int64_t seq : {1, 3, 4, 9, 16}) {
    std::vector<int64_t> ids(static_cast<size_t>(seq)), shape{1, seq};
    for (int64_t t = 0; t < seq; ++t) ids[size_t(t)] = (t * 37 + 11) % kVocab;
    if (seq > 2) ids[1] = -1;  // a negative index counts from the end
    DLTensor in{};
    in.data = ids.data();
    in.device = {kDLCPU, 0};
    in.ndim = 2;
    in.dtype = {kDLInt, 64, 1};
    in.shape = shape.data();
    s.set_input(0, in);
    s.run();
    const float* logits = static_cast<const float*>(s.output(0).data);
    const float* z = static_cast<const float*>(s.output(1).data);
    EXPECT_EQ(s.output(0).shape[2], kVocab);
    for (int64_t t = 0; t < seq; ++t) {
      const int64_t row = ids[size_t(t)] < 0 ? ids[size_t(t)] + kVocab : ids[size_t(t)];
      const float* e = &w[size_t(row * kWidth)];
      for (int64_t n = 0; n < kVocab; ++n) {
        double want = 0;
        for (int64_t k = 0; k < kWidth; ++k) want += double(e[k]) * w[size_t(n * kWidth + k)];
        ASSERT_NEAR(logits[t * kVocab + n], want, 1e-4)
            << "seq " << seq << " t " << t << " n " << n;
      }
      for (int64_t n = 0; n < kCols; ++n) {
        double want = c[size_t(n)];
        for (int64_t k = 0; k < kWidth; ++k) want += double(e[k]) * v[size_t(k * kCols + n)];
        ASSERT_NEAR(z[t * kCols + n], want, 1e-4) << "seq " << seq << " t " << t << " n " << n;
      }
    }
  }
}

// MatMul + bias row + summand + Relu (fuse_epilogue's form) over a B of 200 columns, not tied:
// the symbolic_rows_matmul rule lays B out in whole column panels and the epilogue follows.
TEST(TiedEmbedding, FusedEpilogueOfABlockedProductMatchesAReference) {
  std::vector<float> v = random_vector(kWidth * kCols, 4), c = random_vector(kCols, 5);
  OnnxModelBuilder b(13);
  b.input("x", {0, kWidth}, onnx::TensorProto::FLOAT, {"seq", ""});
  b.input("r", {0, kCols}, onnx::TensorProto::FLOAT, {"seq", ""});
  b.initializer("V", {kWidth, kCols}, v);
  b.initializer("c", {kCols}, c);
  b.node("MatMul", {"x", "V"}, {"p"});
  b.node("Add", {"p", "c"}, {"q"});
  b.node("Add", {"q", "r"}, {"s"});
  b.node("Relu", {"s"}, {"y"});
  b.output("y");
  std::string dir = temp_dir("tied").string();
  b.save(dir + "/epilogue.onnx");
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..16");
  std::ostringstream dump;
  driver::compile_model(dir + "/epilogue.onnx", dir + "/epilogue.so", o, dump);
  rt::Model model(dir + "/epilogue.so");
  ASSERT_EQ(model.artifact().num_kernels, 1);
  EXPECT_STREQ(model.artifact().kernels[0].ops, "MatMul+Add+Add+Relu");
  // B and the bias padded to whole panels (16 or 32 columns: 208 or 224): the rule's layout.
  EXPECT_GT(model.artifact().constant_bytes, uint64_t((kWidth + 1) * kCols * sizeof(float)));
  rt::Session s(model);
  for (int64_t seq : {1, 5, 16}) {
    std::vector<float> x = random_vector(size_t(seq * kWidth), 6),
                       r = random_vector(size_t(seq * kCols), 7);
    std::vector<int64_t> xs{seq, kWidth}, rs{seq, kCols};
    s.set_input(0, f32_tensor(x, xs));
    s.set_input(1, f32_tensor(r, rs));
    s.run();
    const float* y = static_cast<const float*>(s.output(0).data);
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t n = 0; n < kCols; ++n) {
        double want = c[size_t(n)] + r[size_t(i * kCols + n)];
        for (int64_t k = 0; k < kWidth; ++k)
          want += double(x[size_t(i * kWidth + k)]) * v[size_t(k * kCols + n)];
        ASSERT_NEAR(y[i * kCols + n], std::max(want, 0.0), 1e-4) << "seq " << seq << " " << i;
      }
  }
}

}  // namespace
}  // namespace ingot::testing
