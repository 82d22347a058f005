// Rule row_product (schedule/rules/row_product.h): on the c target lowering describes MatMul +
// bias + Relu and a batched MatMul with the same product block as every other target
// (compute_product_block), the rule is chosen by that pattern, and its schedule runs each row's
// init, then k outside j, then the epilogue right after the row. The traces replay to the same
// kernels. (The c target's numbers are the conformance and c-target suites'.) On the llvm target
// the products its dense rule does not take (A transposed, a vector operand) take the same rule,
// vectorized and in parallel, and match products computed here in double precision.
#include <gtest/gtest.h>

#include <ingot/runtime.h>

#include <cmath>

#include "compiled_model.h"
#include "driver/onnx_model_builder.h"
#include "schedule/rules/default_rules.h"
#include "schedule/trace.h"
#include "schedule_points.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"

namespace ingot::testing {
namespace {

TEST(RowProduct, TheCTargetsProductsAreBlocksInRowOrderWithTheEpilogueAfterEachRow) {
  OnnxModelBuilder b(13);
  b.input("x", {6, 24}, onnx::TensorProto::FLOAT);
  b.input("p", {3, 5, 24}, onnx::TensorProto::FLOAT);
  b.input("q", {3, 24, 7}, onnx::TensorProto::FLOAT);
  b.initializer("W", {24, 40}, random_vector(24 * 40, 1));
  b.initializer("c", {40}, random_vector(40, 2));
  b.node("MatMul", {"x", "W"}, {"m"});
  b.node("Add", {"m", "c"}, {"a"});
  b.node("Relu", {"a"}, {"y"});
  b.node("MatMul", {"p", "q"}, {"z"});
  b.output("y");
  b.output("z");
  const std::filesystem::path dir = temp_dir("row_product");
  b.save((dir / "rp.onnx").string());
  driver::CompileOptions o;
  o.target = "c";
  tir::IRModule mod = lowered_module((dir / "rp.onnx").string(), dir, o);
  schedule::assign_schedule_rules(mod, "c");
  const tir::IRModule unscheduled = mod;
  int products = 0;
  for (const tir::PrimFunc& f : mod.kernels)
    products += f.schedule_rule == schedule::kRowProductRule;
  EXPECT_EQ(products, 2);
  schedule::RuleTarget c_target;
  c_target.kind = "c";
  schedule::apply_default_schedules(mod, c_target);
  int placed = 0;
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    const tir::PrimFunc& f = mod.kernels[k];
    if (f.schedule_rule != schedule::kRowProductRule) continue;
    schedule::Trace t = schedule::Trace::from_json(nlohmann::json::parse(f.schedule_trace));
    EXPECT_TRUE(tir::structural_equal(t.replay(unscheduled.kernels[k]).func(), f)) << f.name;
    placed += f.schedule_trace.find("reverse_compute_at") != std::string::npos;
    // k outside j: the update's k loop comes before its j loop, after the row's init.
    const std::string text = tir::to_string(f);
    const size_t init = text.find("matmul_init"), k_loop = text.find("for k in"),
                 j_loop = text.find("for j in", k_loop);
    ASSERT_NE(init, std::string::npos) << text;
    ASSERT_NE(k_loop, std::string::npos) << text;
    EXPECT_LT(init, k_loop) << text;
    EXPECT_NE(j_loop, std::string::npos) << text;
  }
  EXPECT_EQ(placed, 1);  // the Relu after each row of the first product
}

TEST(RowProduct, TheLlvmTargetsOtherProductsTakeItAndMatchAReference) {
  // y = Relu(Gemm(A^T, W, c)) [6, 40] with A [24, 6] (A read transposed: the dense rule's
  // pattern takes it); v = MatMul(u [24], W) [40] (a vector operand) and s = MatMul(p, p) with
  // p [2, 5, 5] (one tensor as both operands) are not the dense rule's: row_product's.
  const std::vector<float> w = random_vector(24 * 40, 1), c = random_vector(40, 2);
  OnnxModelBuilder b(13);
  b.input("a", {24, 6}, onnx::TensorProto::FLOAT);
  b.input("u", {24}, onnx::TensorProto::FLOAT);
  b.input("p", {2, 5, 5}, onnx::TensorProto::FLOAT);
  b.initializer("W", {24, 40}, w);
  b.initializer("c", {40}, c);
  OnnxModelBuilder::attr_int(b.node("Gemm", {"a", "W", "c"}, {"g"}), "transA", 1);
  b.node("Relu", {"g"}, {"y"});
  b.node("MatMul", {"u", "W"}, {"v"});
  b.node("MatMul", {"p", "p"}, {"s"});
  b.output("y");
  b.output("v");
  b.output("s");
  const std::filesystem::path dir = temp_dir("row_product_llvm");
  const std::string onnx = (dir / "rp.onnx").string();
  b.save(onnx);
  tir::IRModule mod = lowered_module(onnx, dir);
  int products = 0;
  for (const tir::PrimFunc& f : mod.kernels)
    products += f.schedule_rule == schedule::kRowProductRule;
  EXPECT_EQ(products, 2);
  std::set<std::string> traces;
  const std::string so = (dir / "rp.so").string();
  build_random_point(mod, schedule::kRowProductRule, 3, so, traces);  // (replays checked)
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
  std::vector<float> a = random_vector(24 * 6, 3), u = random_vector(24, 4),
                     p = random_vector(2 * 5 * 5, 5);
  std::vector<int64_t> as{24, 6}, us{24}, ps{2, 5, 5};
  DLTensor at = f32_tensor(a, as), ut = f32_tensor(u, us), pt = f32_tensor(p, ps);
  ASSERT_EQ(ingot_session_set_input(session, 0, &at), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_set_input(session, 1, &ut), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_set_input(session, 2, &pt), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
  DLTensor y, v, sq;
  ASSERT_EQ(ingot_session_output(session, 0, &y), INGOT_OK);
  ASSERT_EQ(ingot_session_output(session, 1, &v), INGOT_OK);
  ASSERT_EQ(ingot_session_output(session, 2, &sq), INGOT_OK);
  auto* yp = static_cast<const float*>(y.data);
  auto* vp = static_cast<const float*>(v.data);
  auto* sp = static_cast<const float*>(sq.data);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 5; ++j) {
        double want = 0;
        for (int64_t k = 0; k < 5; ++k)
          want += double(p[size_t(n * 25 + i * 5 + k)]) * p[size_t(n * 25 + k * 5 + j)];
        ASSERT_NEAR(sp[n * 25 + i * 5 + j], want, 1e-4) << n << ", " << i << ", " << j;
      }
  for (int64_t j = 0; j < 40; ++j) {
    for (int64_t i = 0; i < 6; ++i) {
      double want = c[size_t(j)];
      for (int64_t k = 0; k < 24; ++k) want += double(a[size_t(k * 6 + i)]) * w[size_t(k * 40 + j)];
      ASSERT_NEAR(yp[i * 40 + j], std::max(want, 0.0), 1e-4) << i << ", " << j;
    }
    double want = 0;
    for (int64_t k = 0; k < 24; ++k) want += double(u[size_t(k)]) * w[size_t(k * 40 + j)];
    ASSERT_NEAR(vp[j], want, 1e-4) << j;
  }
  ingot_session_free(session);
  ingot_model_free(model);
}

}  // namespace
}  // namespace ingot::testing
