// Type inference of QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear: output dtypes
// (zero point, `to`, scale), per-tensor / per-axis / blocked scale checks and axis
// normalisation.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferQuantize, OutputDtypeFromZeroPointToOrUint8) {
  OneNode with_zp(OpKind::QuantizeLinear, {F32({2, 3}), F32({}), T(DType::kI8, {})});
  EXPECT_EQ(with_zp.infer(), T(DType::kI8, {2, 3}));
  EXPECT_FALSE(with_zp.node->attrs.has("axis"));  // per-tensor: no axis
  EXPECT_EQ(with_zp.node->attrs.get_int("block_size", -1), 0);

  OneNode plain(OpKind::QuantizeLinear, {F32({2, 3}), F32({1})});
  EXPECT_EQ(plain.infer(), T(DType::kU8, {2, 3}));

  Attrs to;
  to.set("to", int64_t(DType::kI16));
  EXPECT_EQ(OneNode(OpKind::QuantizeLinear, {F32({4}), F32({})}, to).infer(), T(DType::kI16, {4}));

  EXPECT_EQ(
      user_error([&] {
        OneNode(OpKind::QuantizeLinear, {F32({2, 3}), F32({}), T(DType::kU8, {})}, to).infer();
      }),
      "node 'n' (QuantizeLinear): output dtype int16 differs from the zero point's dtype "
      "uint8");
  EXPECT_EQ(user_error([] {
              OneNode(OpKind::QuantizeLinear, {F32({2}), F32({}), T(DType::kI32, {})}).infer();
            }),
            "node 'n' (QuantizeLinear): quantized dtype int32 is not supported (uint8, int8, "
            "uint16, int16)");
}

TEST(InferQuantize, PerAxisAndBlockedScales) {
  Attrs neg;
  neg.set("axis", int64_t(-1));
  OneNode per_axis(OpKind::QuantizeLinear, {F32({2, 3}), F32({3}), T(DType::kU8, {3})}, neg);
  EXPECT_EQ(per_axis.infer(), T(DType::kU8, {2, 3}));
  EXPECT_EQ(per_axis.node->attrs.get_int("axis", -9), 1);
  Attrs first;
  first.set("axis", int64_t(0));
  OneNode axis0(OpKind::DequantizeLinear, {T(DType::kU8, {3, 2}), F32({3})}, first);
  EXPECT_EQ(axis0.infer(), F32({3, 2}));
  EXPECT_EQ(axis0.node->attrs.get_int("axis", -9), 0);

  EXPECT_NE(user_error([&] {
              OneNode(OpKind::QuantizeLinear, {F32({2, 3}), F32({2})}, neg).infer();
            }),
            "");  // 2 scales for an axis of 3
  EXPECT_EQ(
      user_error([&] {
        OneNode(OpKind::QuantizeLinear, {F32({2, 3}), F32({3}), T(DType::kU8, {})}, neg).infer();
      }),
      "node 'n' (QuantizeLinear): input 'zero_point' uint8[] must have the shape of "
      "'scale' float32[3]");

  Attrs blocked;
  blocked.set("axis", int64_t(1));
  blocked.set("block_size", int64_t(2));
  OneNode b(OpKind::DequantizeLinear, {T(DType::kI8, {2, 5}), F32({2, 3}), T(DType::kI8, {2, 3})},
            blocked);
  EXPECT_EQ(b.infer(), F32({2, 5}));  // ceil(5 / 2) = 3 blocks
  EXPECT_EQ(
      user_error([&] {
        OneNode(OpKind::DequantizeLinear, {T(DType::kI8, {2, 5}), F32({2, 2})}, blocked).infer();
      }),
      "node 'n' (DequantizeLinear): blocked input 'scale' float32[2,2] does not match input "
      "int8[2,5] with block_size 2 on axis 1");
}

TEST(InferQuantize, PerTensorScaleAndZeroPointMayDifferInRank) {
  // ONNX Runtime's quantizer writes a [1] scale with a scalar zero point for a per-tensor bias
  // (regression: this was refused as a shape mismatch).
  OneNode dq(OpKind::DequantizeLinear, {T(DType::kI32, {8}), F32({1}), T(DType::kI32, {})});
  EXPECT_EQ(dq.infer(), F32({8}));
  OneNode q(OpKind::QuantizeLinear, {F32({4}), F32({}), T(DType::kI8, {1})});
  EXPECT_EQ(q.infer(), T(DType::kI8, {4}));
}

TEST(InferQuantize, DequantizeOutputsTheScaleTypeOrTo) {
  EXPECT_EQ(OneNode(OpKind::DequantizeLinear, {T(DType::kI32, {4}), T(DType::kF16, {})}).infer(),
            T(DType::kF16, {4}));
  Attrs to;
  to.set("to", int64_t(DType::kF32));
  EXPECT_EQ(OneNode(OpKind::DequantizeLinear, {T(DType::kU8, {4}), T(DType::kF16, {})}, to).infer(),
            F32({4}));
  EXPECT_EQ(
      user_error([] {
        OneNode(OpKind::DequantizeLinear, {T(DType::kU8, {4}), F32({}), T(DType::kI8, {})}).infer();
      }),
      "node 'n' (DequantizeLinear): inputs 'x' (uint8) and 'zero_point' (int8) must have the "
      "same dtype");
  EXPECT_NE(user_error([] { OneNode(OpKind::DequantizeLinear, {F32({4}), F32({})}).infer(); }), "");
}

TEST(InferQuantize, DynamicQuantizeLinearOutputs) {
  OneNode d(OpKind::DynamicQuantizeLinear, {F32({"N", 3})}, {}, 3);
  EXPECT_EQ(d.infer(0), T(DType::kU8, {"N", 3}));
  EXPECT_EQ(d.infer(1), F32({}));
  EXPECT_EQ(d.infer(2), T(DType::kU8, {}));
}

}  // namespace
}  // namespace ingot::graph
