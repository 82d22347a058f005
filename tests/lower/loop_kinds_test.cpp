// Lowering describes loops, it never decides how they run: every loop a lowered kernel has is
// serial (the schedule rules make loops parallel, vectorized or unrolled). Checked on the ops
// whose compute rules once set kinds themselves: a linear Resize (its unrolled taps one store,
// a "compute" block), the row forms of MatMul with a row accumulator, Softmax, a reduction over
// outer axes, LayerNormalization and CumSum.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "graph/transforms/infer_types.h"
#include "lower/lower_graph.h"
#include "rule_test_util.h"
#include "tir/visitor.h"

namespace ingot::testing {
namespace {

using ops::OpKind;

class LoopKinds : public tir::IRVisitor {
 public:
  void visit_For(const tir::For* op, const tir::Stmt& s) override {
    if (op->kind != tir::ForKind::kSerial) not_serial.push_back(op->loop_var.name());
    tir::IRVisitor::visit_For(op, s);
  }
  void visit_Block(const tir::Block* op, const tir::Stmt& s) override {
    blocks.push_back(op->name_hint);
    tir::IRVisitor::visit_Block(op, s);
  }
  std::vector<std::string> not_serial, blocks;
};

LoopKinds kinds_of(const tir::IRModule& m) {
  LoopKinds k;
  for (const tir::PrimFunc& f : m.kernels) k.visit(f);
  return k;
}

std::vector<float> floats(const std::vector<double>& v) {
  return {v.begin(), v.end()};
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(LoopKinds, LoweringLeavesEveryLoopSerial) {
  TestNet n;
  graph::Value* x = n.input("x", {2, 3, 8, 12});
  graph::Attrs resize;
  resize.set("mode", std::string("linear"));
  resize.set("coordinate_transformation_mode", std::string("half_pixel"));
  resize.set("scales", std::vector<double>{1, 1, 2, 2});
  graph::Value* r = n.op(OpKind::Resize, "resize", {x}, resize);
  graph::Value* s = n.op(OpKind::Softmax, "softmax", {r});
  graph::Attrs sum;
  sum.set("axes", std::vector<int64_t>{0, 2});
  sum.set("keepdims", int64_t(0));
  graph::Value* red = n.op(OpKind::ReduceSum, "reduce", {s}, sum);  // [3, 24]
  graph::Value* w = n.constant("w", {24, 40}, floats(random_values(24 * 40)));
  graph::Value* mm = n.op(OpKind::MatMul, "matmul", {red, w});  // [3, 40]
  graph::Value* scale = n.constant("scale", {40}, floats(random_values(40, 0.5, 1.5)));
  graph::Value* bias = n.constant("bias", {40}, floats(random_values(40)));
  graph::Attrs ln;
  ln.set("axis", int64_t(-1));
  graph::Value* norm = n.op(OpKind::LayerNormalization, "norm", {mm, scale, bias}, ln);
  graph::Value* axis = n.g.add_constant(
      "axis", std::make_shared<graph::Tensor>(graph::DType::kI64, std::vector<int64_t>{},
                                              std::vector<uint8_t>(8, 0)));
  graph::Value* cs = n.op(OpKind::CumSum, "cumsum", {norm, axis});
  n.g.outputs = {cs};
  graph::infer_types(n.g);
  // Loop nests for every op (no CPU block forms), and with the CPU rules' block forms.
  for (bool cpu : {false, true}) {
    SCOPED_TRACE(cpu);
    lower::LowerOptions o;
    if (cpu) o.cpu_schedules = true;
    LoopKinds k = kinds_of(lower::lower_graph(n.g, o));
    EXPECT_TRUE(k.not_serial.empty()) << k.not_serial.front();
    EXPECT_TRUE(has(k.blocks, "compute"));  // the Resize: one store per output element
    EXPECT_TRUE(has(k.blocks, "rows"));
    EXPECT_TRUE(has(k.blocks, "lanes"));
  }
}

}  // namespace
}  // namespace ingot::testing
