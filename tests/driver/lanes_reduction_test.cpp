// Reductions that keep their input's innermost dim (compute/reduce.cpp: block "reduce" over
// [kept dims..., j | reduced dims...]) scheduled by the injective rule's lanes-reduction part
// (rules/lanes_reduction.h): a blocked global pooling (ReduceMean over H, W of [2, 3, 5, 7, 16]),
// a column sum whose 512 columns run in chunks (ReduceSum, axis 0 of [40, 512]), a column L2
// norm whose 300 columns no chunk divides (its finish an in-place block), and a ReduceMax over
// two outer axes. The default schedule and random points of the chunk and parallel choices are
// compiled, run and checked against references computed here; the traces replay.
#include <gtest/gtest.h>

#include <ingot/runtime.h>

#include <cmath>
#include <set>

#include "compiled_model.h"
#include "onnx_model_builder.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/injective.h"
#include "schedule_points.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

struct Reduction {
  std::string op;
  std::vector<int64_t> shape, axes;
  bool keepdims;
};

const std::vector<Reduction> kCases = {{"ReduceMean", {2, 3, 5, 7, 16}, {2, 3}, true},
                                       {"ReduceSum", {40, 512}, {0}, false},
                                       {"ReduceL2", {6, 300}, {0}, true},
                                       {"ReduceMax", {4, 9, 48}, {0, 1}, false}};

std::string model_file(const std::filesystem::path& dir) {
  OnnxModelBuilder b(13);
  for (size_t c = 0; c < kCases.size(); ++c) {
    const Reduction& r = kCases[c];
    std::string x = "x" + std::to_string(c), y = "y" + std::to_string(c);
    b.input(x, r.shape);
    onnx::NodeProto* n;
    if (r.op == "ReduceSum") {  // (axes an input from opset 13)
      b.initializer_i64("axes" + std::to_string(c), {int64_t(r.axes.size())}, r.axes);
      n = b.node(r.op, {x, "axes" + std::to_string(c)}, {y});
    } else {
      n = b.node(r.op, {x}, {y});
      OnnxModelBuilder::attr_ints(n, "axes", r.axes);
    }
    OnnxModelBuilder::attr_int(n, "keepdims", r.keepdims ? 1 : 0);
    b.output(y);
  }
  std::string path = (dir / "reductions.onnx").string();
  b.save(path);
  return path;
}

// The reference of case `r` over x, in the output's row-major order.
std::vector<double> reference(const Reduction& r, const std::vector<float>& x) {
  const int64_t inner = r.shape.back();
  int64_t outer = 1, red = 1;
  for (size_t d = 0; d + 1 < r.shape.size(); ++d)
    (std::count(r.axes.begin(), r.axes.end(), int64_t(d)) ? red : outer) *= r.shape[d];
  // Every case reduces leading dims only, so x is [red, outer, inner] or [outer, red, inner]:
  // the reduced dims lead in all but the pooling case ([n, c | h, w | lanes]).
  const bool pooled = r.op == "ReduceMean";
  std::vector<double> y;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      double acc = r.op == "ReduceMax" ? -INFINITY : 0;
      for (int64_t k = 0; k < red; ++k) {
        double v = x[size_t(((pooled ? o * red + k : k * outer + o)) * inner + j)];
        acc = r.op == "ReduceMax" ? std::max(acc, v) : r.op == "ReduceL2" ? acc + v * v : acc + v;
      }
      y.push_back(r.op == "ReduceMean" ? acc / double(red)
                  : r.op == "ReduceL2" ? std::sqrt(acc)
                                       : acc);
    }
  return y;
}

void expect_reductions(const std::string& so) {
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  std::vector<std::vector<float>> xs;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t c = 0; c < kCases.size(); ++c) {
    int64_t n = 1;
    for (int64_t d : kCases[c].shape) n *= d;
    xs.push_back(random_vector(size_t(n), uint32_t(30 + c)));
    shapes.push_back(kCases[c].shape);
  }
  for (size_t c = 0; c < kCases.size(); ++c) {
    DLTensor t = f32_tensor(xs[c], shapes[c]);
    ASSERT_EQ(ingot_session_set_input(session, int(c), &t), INGOT_OK) << ingot_last_error();
  }
  ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  for (size_t c = 0; c < kCases.size(); ++c) {
    SCOPED_TRACE(kCases[c].op);
    DLTensor y;
    ASSERT_EQ(ingot_session_output(session, int(c), &y), INGOT_OK);
    std::vector<double> want = reference(kCases[c], xs[c]);
    auto* yp = static_cast<const float*>(y.data);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(yp[i], want[i], 1e-4 * (1 + std::abs(want[i]))) << "at " << i;
  }
  ingot_session_free(session);
  ingot_model_free(model);
}

TEST(LanesReduction, DefaultAndRandomPointsMatchAReferenceAndReplay) {
  const std::filesystem::path dir = temp_dir("lanes_reduction");
  const std::string onnx = model_file(dir);
  // The default schedule, through the whole compile: each reduction's init decomposed.
  {
    tir::IRModule mod = lowered_module(onnx, dir);
    schedule::apply_default_schedules(mod, driver::rule_target(codegen::Target::host()));
    int decomposed = 0;
    for (const tir::PrimFunc& f : mod.kernels)
      decomposed += f.schedule_trace.find("decompose_reduction") != std::string::npos;
    EXPECT_EQ(decomposed, 4);
    std::string so = (dir / "default.so").string();
    driver::CompileOptions o;
    std::ostringstream dump;
    driver::compile_model(onnx, so, o, dump);
    expect_reductions(so);
  }
  const tir::IRModule unscheduled = lowered_module(onnx, dir);
  std::set<std::string> traces;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::string so = (dir / ("p" + std::to_string(seed) + ".so")).string();
    build_random_point(unscheduled, schedule::kInjectiveRule, seed, so, traces);
    expect_reductions(so);
  }
  EXPECT_GE(traces.size(), 8u);  // four kernels per seed, points that differ
}

}  // namespace
}  // namespace ingot::testing
