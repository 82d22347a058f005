// Softmax and ReduceSum over a symbolic last dim: their row reductions (the max, the sum of
// exponentials, the plain sum) are left to LLVM's loop vectorizer with partial results in vector
// lanes and a remainder loop (schedule/rules/row_reduction.h). Checked against double-precision
// closed forms at lengths below, at and past a vector's lanes, and long rows, in one artifact.
#include <gtest/gtest.h>

#include <ingot/runtime.hpp>

#include <algorithm>
#include <cmath>

#include "driver/compile.h"
#include "driver/compiled_model.h"
#include "driver/dim_bounds.h"
#include "driver/onnx_model_builder.h"

namespace ingot::testing {
namespace {

constexpr int64_t kRows = 3;

TEST(SymbolicRowReduction, SoftmaxAndSumMatchClosedFormsAtEveryLength) {
  OnnxModelBuilder b(13);
  b.input("x", {kRows, 0}, onnx::TensorProto::FLOAT, {"", "n"});
  OnnxModelBuilder::attr_int(b.node("Softmax", {"x"}, {"y"}), "axis", -1);
  b.initializer_i64("axes", {1}, {-1});
  b.node("ReduceSum", {"x", "axes"}, {"s"});
  b.output("y");
  b.output("s");
  const auto dir = temp_dir("softmax");
  std::string onnx_path = (dir / "softmax.onnx").string();
  b.save(onnx_path);
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("n:1..2048");
  o.dump = {"tir"};
  std::string so = (dir / "softmax.so").string();
  std::ostringstream dump;
  driver::compile_model(onnx_path, so, o, dump);
  // Every loop over the row (max, exp-sum, scale, sum) is marked for the vectorizer: none
  // stays a serial "range(0, n)".
  const std::string tir = dump.str();
  EXPECT_NE(tir.find("vectorized(0, n)"), std::string::npos) << tir;
  EXPECT_EQ(tir.find("range(0, n)"), std::string::npos) << tir;
  rt::Model model(so);
  rt::Session session(model);
  for (int64_t n : {1, 5, 15, 16, 17, 33, 100, 1000, 2048}) {
    std::vector<float> x = random_vector(size_t(kRows * n), uint32_t(n));
    for (float& v : x) v *= 8.0f;  // exponents of a few units: the max subtraction matters
    std::vector<int64_t> shape{kRows, n};
    DLTensor in = f32_tensor(x, shape);
    session.set_input(0, in);
    session.run();
    const float* y = static_cast<const float*>(session.output(0).data);
    const float* s = static_cast<const float*>(session.output(1).data);
    for (int64_t r = 0; r < kRows; ++r) {
      const float* row = &x[size_t(r * n)];
      double mx = *std::max_element(row, row + n), total = 0, sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        total += std::exp(double(row[k]) - mx);
        sum += row[k];
      }
      for (int64_t k = 0; k < n; ++k) {
        double want = std::exp(double(row[k]) - mx) / total;
        ASSERT_NEAR(y[r * n + k], want, 1e-6 + 2e-6 * want) << "n " << n << " row " << r;
      }
      EXPECT_NEAR(s[r], sum, 1e-4 * std::sqrt(double(n))) << "n " << n << " row " << r;
    }
  }
}

}  // namespace
}  // namespace ingot::testing
