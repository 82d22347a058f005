// Type inference for elementwise ops: broadcasting (static and symbolic), Cast, Clip, Gelu,
// attribute-schema errors and the op table's pattern kinds.
#include <gtest/gtest.h>

#include "graph_test_util.h"
#include "ops/op.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferElementwise, UnaryKeepsType) {
  OneNode t(OpKind::Relu, {F32({"N", 3})});
  EXPECT_EQ(t.infer(), F32({"N", 3}));
}

TEST(InferElementwise, Broadcasting) {
  EXPECT_EQ(OneNode(OpKind::Add, {F32({2, 3}), F32({3})}).infer(), F32({2, 3}));
  EXPECT_EQ(OneNode(OpKind::Mul, {F32({4, 1, 5}), F32({3, 1})}).infer(), F32({4, 3, 5}));
  EXPECT_EQ(OneNode(OpKind::Sub, {F32({}), F32({2, 2})}).infer(), F32({2, 2}));
}

TEST(InferElementwise, SymbolicBroadcasting) {
  EXPECT_EQ(OneNode(OpKind::Add, {F32({"N", 4}), F32({"N", 4})}).infer(), F32({"N", 4}));
  EXPECT_EQ(OneNode(OpKind::Add, {F32({"N", 4}), F32({1, 4})}).infer(), F32({"N", 4}));
  EXPECT_EQ(OneNode(OpKind::Add, {F32({"N", 4}), F32({5, 4})}).infer(), F32({5, 4}));
  EXPECT_EQ(OneNode(OpKind::Add, {F32({1}), F32({"N"})}).infer(), F32({"N"}));
}

TEST(InferElementwise, BroadcastErrorNamesNode) {
  OneNode t(OpKind::Add, {F32({2, 3}), F32({4})}, {}, 1, "add_1");
  EXPECT_EQ(user_error([&] { t.infer(); }),
            "node 'add_1' (Add): shapes [2,3] and [4] do not broadcast");
}

TEST(InferElementwise, DTypeMismatch) {
  OneNode t(OpKind::Add, {F32({2}), T(DType::kI64, {2})});
  EXPECT_EQ(user_error([&] { t.infer(); }),
            "node 'n' (Add): inputs 'A' (float32) and 'B' (int64) must have the same dtype");
  // Pow allows a different exponent type.
  EXPECT_EQ(OneNode(OpKind::Pow, {F32({2}), T(DType::kI64, {})}).infer(), F32({2}));
}

TEST(InferElementwise, Cast) {
  Attrs a;
  a.set("to", int64_t(DType::kI32));
  EXPECT_EQ(OneNode(OpKind::Cast, {F32({"N", 2})}, a).infer(), T(DType::kI32, {"N", 2}));
  // Every dtype is a valid target, those declared after bool too (once refused as invalid).
  for (DType to : {DType::kU16, DType::kU32, DType::kU64, DType::kBF16}) {
    Attrs late;
    late.set("to", int64_t(to));
    EXPECT_EQ(OneNode(OpKind::Cast, {F32({2})}, late).infer(), T(to, {2})) << dtype_name(to);
  }
  Attrs bad;
  bad.set("to", int64_t(99));
  OneNode t(OpKind::Cast, {F32({2})}, bad);
  EXPECT_EQ(user_error([&] { t.infer(); }),
            "node 'n' (Cast): attribute 'to' = 99 is not a valid dtype");
  OneNode missing(OpKind::Cast, {F32({2})});
  EXPECT_EQ(user_error([&] { missing.infer(); }),
            "node 'n' (Cast): missing required attribute 'to'");
}

// CastLike with a computed target imports as Cast(X, target_type): inference takes `to` from the
// target's dtype and drops the input.
TEST(InferElementwise, CastTakesToFromTargetInput) {
  OneNode t(OpKind::Cast, {F32({"N", 2}), T(DType::kI64, {3})});
  EXPECT_EQ(t.infer(), T(DType::kI64, {"N", 2}));
  EXPECT_EQ(t.node->inputs.size(), 1u);
  EXPECT_EQ(t.node->attrs.get_int("to", -1), int64_t(DType::kI64));
}

TEST(InferElementwise, ClipWithOptionalInputs) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 3}));
  Value* hi = g.add_value("hi", F32({}));
  g.inputs = {x, hi};
  Node* n = g.add_node(OpKind::Clip, "clip", {x, nullptr, hi}, {"y"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(n->outputs[0]->type, F32({2, 3}));

  OneNode bad(OpKind::Clip, {F32({2}), F32({2})});
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (Clip): input 'min' must be a scalar, got float32[2]");
}

TEST(InferElementwise, AttributeSchemaErrors) {
  Attrs unknown;
  unknown.set("alpha", 1.0);
  OneNode t(OpKind::Relu, {F32({2})}, unknown, 1, "r");
  EXPECT_EQ(user_error([&] { t.infer(); }),
            "node 'r' (Relu): unknown attribute 'alpha' (valid: none)");
  Attrs wrong_type;
  wrong_type.set("approximate", int64_t(1));
  OneNode g(OpKind::Gelu, {F32({2})}, wrong_type, 1, "g");
  EXPECT_EQ(user_error([&] { g.infer(); }),
            "node 'g' (Gelu): attribute 'approximate' must be string, got int");
  Attrs bad_value;
  bad_value.set("approximate", std::string("erf"));
  OneNode g2(OpKind::Gelu, {F32({2})}, bad_value, 1, "g");
  EXPECT_EQ(user_error([&] { g2.infer(); }),
            "node 'g' (Gelu): attribute 'approximate' must be \"none\" or \"tanh\", got \"erf\"");
  OneNode arity(OpKind::Add, {F32({2})}, {}, 1, "a");
  EXPECT_EQ(user_error([&] { arity.infer(); }), "node 'a' (Add): expects 2 inputs, got 1");
}

TEST(OpTable, PatternsAndNames) {
  EXPECT_EQ(ops::op_info(OpKind::Relu).pattern, ops::PatternKind::kElementwise);
  EXPECT_EQ(ops::op_info(OpKind::Add).pattern, ops::PatternKind::kBroadcast);
  EXPECT_EQ(ops::op_info(OpKind::Transpose).pattern, ops::PatternKind::kInjective);
  EXPECT_EQ(ops::op_info(OpKind::ReduceSum).pattern, ops::PatternKind::kReduction);
  EXPECT_EQ(ops::op_info(OpKind::Conv).pattern, ops::PatternKind::kOutEWiseFusable);
  EXPECT_EQ(ops::op_info(OpKind::Shape).pattern, ops::PatternKind::kOpaque);
  EXPECT_STREQ(ops::op_info(OpKind::Gemm).name, "Gemm");
  EXPECT_STREQ(ops::pattern_name(ops::PatternKind::kInjective), "injective");
}

TEST(OpTable, ElementwiseFlops) {
  OneNode t(OpKind::Mul, {F32({4, 5}), F32({5})});
  t.infer();
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::Mul).flops(*t.node), 20.0);
}

}  // namespace
}  // namespace ingot::graph
