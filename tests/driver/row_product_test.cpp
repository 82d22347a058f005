// Rule row_product (schedule/rules/row_product.h): on the c target lowering describes MatMul +
// bias + Relu and a batched MatMul with the same product block as every other target
// (compute_product_block), the rule is chosen by that pattern, and its schedule runs each row's
// init, then k outside j, then the epilogue right after the row. The traces replay to the same
// kernels. (The c target's numbers are the conformance and c-target suites'.)
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ingot::testing
