// Type inference for the comparison/logic ops, Where, IsNaN/IsInf, the variadic elementwise ops,
// Mod, BitShift, float-only math and the activations (defaults filled, PRelu slope broadcast).
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

TensorType Bool(std::initializer_list<testing::D> dims) {
  return T(DType::kBool, dims);
}

TEST(InferCompareLogic, ComparisonsBroadcastToBool) {
  for (OpKind op : {OpKind::Equal, OpKind::Less, OpKind::LessOrEqual, OpKind::Greater,
                    OpKind::GreaterOrEqual}) {
    SCOPED_TRACE(ops::op_name(op));
    EXPECT_EQ(OneNode(op, {F32({"N", 3}), F32({3})}).infer(), Bool({"N", 3}));
  }
  EXPECT_EQ(OneNode(OpKind::Equal, {T(DType::kI32, {2, 1}), T(DType::kI32, {4})}).infer(),
            Bool({2, 4}));
  OneNode mixed(OpKind::Less, {F32({2}), T(DType::kI64, {2})});
  EXPECT_EQ(user_error([&] { mixed.infer(); }),
            "node 'n' (Less): inputs 'A' (float32) and 'B' (int64) must have the same dtype");
}

TEST(InferCompareLogic, LogicOpsNeedBool) {
  EXPECT_EQ(OneNode(OpKind::And, {Bool({3, 1}), Bool({4})}).infer(), Bool({3, 4}));
  EXPECT_EQ(OneNode(OpKind::Not, {Bool({"N"})}).infer(), Bool({"N"}));
  OneNode bad(OpKind::Xor, {Bool({2}), F32({2})});
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (Xor): input 'B' must be bool, got float32");
}

TEST(InferCompareLogic, WhereBroadcastsThreeWays) {
  EXPECT_EQ(OneNode(OpKind::Where, {Bool({2, 1, 1}), F32({3, 1}), F32({4})}).infer(),
            F32({2, 3, 4}));
  OneNode cond_not_bool(OpKind::Where, {F32({2}), F32({2}), F32({2})});
  EXPECT_EQ(user_error([&] { cond_not_bool.infer(); }),
            "node 'n' (Where): input 'condition' must be bool, got float32");
}

TEST(InferCompareLogic, IsInfFillsDefaultsAndIsNaNNeedsFloat) {
  OneNode t(OpKind::IsInf, {F32({2, 3})});
  EXPECT_EQ(t.infer(), Bool({2, 3}));
  EXPECT_EQ(t.node->attrs.get_int("detect_negative", -1), 1);
  EXPECT_EQ(t.node->attrs.get_int("detect_positive", -1), 1);
  OneNode bad(OpKind::IsNaN, {T(DType::kI32, {2})});
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (IsNaN): input 'X' must be a float tensor, got int32");
}

TEST(InferElementwiseExtra, VariadicBroadcastsAllInputs) {
  EXPECT_EQ(OneNode(OpKind::Max, {F32({3})}).infer(), F32({3}));
  EXPECT_EQ(OneNode(OpKind::Sum, {F32({2, 1}), F32({3}), F32({4, 1, 1})}).infer(), F32({4, 2, 3}));
  OneNode bad(OpKind::Mean, {F32({2}), F32({2}), T(DType::kI64, {2})});
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (Mean): inputs 'data_0' (float32) and 'data_2' (int64) must have the same "
            "dtype");
}

TEST(InferElementwiseExtra, ModAndBitShift) {
  Attrs fmod;
  fmod.set("fmod", int64_t(1));
  EXPECT_EQ(OneNode(OpKind::Mod, {F32({2, 3}), F32({3})}, fmod).infer(), F32({2, 3}));
  Attrs two;
  two.set("fmod", int64_t(2));
  OneNode bad_fmod(OpKind::Mod, {F32({2}), F32({2})}, two);
  EXPECT_EQ(user_error([&] { bad_fmod.infer(); }),
            "node 'n' (Mod): attribute 'fmod' must be 0 or 1, got 2");
  Attrs left;
  left.set("direction", std::string("LEFT"));
  EXPECT_EQ(OneNode(OpKind::BitShift, {T(DType::kU8, {3}), T(DType::kU8, {1})}, left).infer(),
            T(DType::kU8, {3}));
  Attrs up;
  up.set("direction", std::string("UP"));
  OneNode bad(OpKind::BitShift, {T(DType::kU8, {3}), T(DType::kU8, {3})}, up);
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (BitShift): attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"UP\"");
}

TEST(InferElementwiseExtra, BitwiseOps) {
  EXPECT_EQ(
      OneNode(OpKind::BitwiseAnd, {T(DType::kU8, {3, 4, 5, 6}), T(DType::kU8, {4, 5, 6})}).infer(),
      T(DType::kU8, {3, 4, 5, 6}));
  EXPECT_EQ(OneNode(OpKind::BitwiseXor, {T(DType::kI32, {"N", 1}), T(DType::kI32, {5})}).infer(),
            T(DType::kI32, {"N", 5}));
  EXPECT_EQ(OneNode(OpKind::BitwiseNot, {T(DType::kI64, {2})}).infer(), T(DType::kI64, {2}));
  OneNode f(OpKind::BitwiseOr, {F32({2}), F32({2})}, {}, 1, "b");
  EXPECT_EQ(user_error([&] { f.infer(); }),
            "node 'b' (BitwiseOr): inputs must be integers, got float32");
  OneNode mixed(OpKind::BitwiseAnd, {T(DType::kI32, {2}), T(DType::kI64, {2})}, {}, 1, "b");
  EXPECT_NE(user_error([&] { mixed.infer(); }).find("node 'b' (BitwiseAnd)"), std::string::npos);
}

TEST(InferElementwiseExtra, FloatOnlyMathRejectsIntegers) {
  EXPECT_EQ(OneNode(OpKind::Atanh, {F32({"N"})}).infer(), F32({"N"}));
  EXPECT_EQ(OneNode(OpKind::Sign, {T(DType::kI64, {2})}).infer(), T(DType::kI64, {2}));
  OneNode bad(OpKind::Floor, {T(DType::kI32, {2})});
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (Floor): input must be a float tensor, got int32");
}

TEST(InferActivation, DefaultsAreFilled) {
  OneNode selu(OpKind::Selu, {F32({2})});
  selu.infer();
  EXPECT_DOUBLE_EQ(selu.node->attrs.get_float("alpha", 0), 1.67326319217681884765625);
  EXPECT_DOUBLE_EQ(selu.node->attrs.get_float("gamma", 0), 1.05070102214813232421875);
  Attrs a;
  a.set("alpha", 0.5);
  OneNode hs(OpKind::HardSigmoid, {F32({2})}, a);
  hs.infer();
  EXPECT_DOUBLE_EQ(hs.node->attrs.get_float("alpha", 0), 0.5);
  EXPECT_DOUBLE_EQ(hs.node->attrs.get_float("beta", 0), 0.5);
  OneNode lr(OpKind::LeakyRelu, {F32({2})});
  lr.infer();
  EXPECT_DOUBLE_EQ(lr.node->attrs.get_float("alpha", 0), 0.01);
  Attrs stray;
  stray.set("alpha", 1.0);
  OneNode sp(OpKind::Softplus, {F32({2})}, stray);
  EXPECT_EQ(user_error([&] { sp.infer(); }),
            "node 'n' (Softplus): unknown attribute 'alpha' (valid: none)");
}

TEST(InferActivation, PReluSlopeBroadcastsToX) {
  EXPECT_EQ(OneNode(OpKind::PRelu, {F32({2, 3, 4}), F32({3, 1})}).infer(), F32({2, 3, 4}));
  OneNode bad(OpKind::PRelu, {F32({3}), F32({2, 3})});
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'n' (PRelu): input 'slope' float32[2,3] does not broadcast to X float32[3]");
}

TEST(InferReduceExtra, ArgMaxShapesAndDefaults) {
  OneNode t(OpKind::ArgMax, {F32({2, "N", 4})});
  EXPECT_EQ(t.infer(), T(DType::kI64, {1, "N", 4}));
  EXPECT_EQ(t.node->attrs.get_int("select_last_index", -1), 0);
  Attrs a;
  a.set("axis", int64_t(-1));
  a.set("keepdims", int64_t(0));
  OneNode m(OpKind::ArgMin, {F32({2, 3, 4})}, a);
  EXPECT_EQ(m.infer(), T(DType::kI64, {2, 3}));
  EXPECT_EQ(m.node->attrs.get_int("axis", -1), 2);
}

TEST(InferReduceExtra, ReduceMaxAndLogSoftmax) {
  Attrs a;
  a.set("axes", std::vector<int64_t>{-1});
  a.set("keepdims", int64_t(0));
  EXPECT_EQ(OneNode(OpKind::ReduceMax, {F32({2, 3})}, a).infer(), F32({2}));
  OneNode ls(OpKind::LogSoftmax, {F32({2, 3})});
  EXPECT_EQ(ls.infer(), F32({2, 3}));
  EXPECT_EQ(ls.node->attrs.get_int("axis", -9), 1);
}

TEST(InferReduceExtra, LayerNormStatisticsOutputs) {
  Attrs a;
  a.set("axis", int64_t(1));
  OneNode ln(OpKind::LayerNormalization, {F32({"N", 3, 4}), F32({3, 4})}, a, 3);
  ln.infer();
  EXPECT_EQ(ln.infer(1), F32({"N", 1, 1}));
  EXPECT_EQ(ln.infer(2), F32({"N", 1, 1}));
}

}  // namespace
}  // namespace ingot::graph
