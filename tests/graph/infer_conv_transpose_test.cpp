// Type inference of ConvTranspose: output shapes from pads, strides, dilations, output_padding,
// output_shape and auto_pad, the canonical attributes (begin pads, explicit output_shape), and
// attribute errors.
#include <gtest/gtest.h>

#include "graph_test_util.h"
#include "ops/op.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::user_error;
using V = std::vector<int64_t>;

TEST(InferConvTranspose, DefaultsGrowByTheKernel) {
  // out = (3 - 1) * 1 + 3 = 5; M = W.shape[1] * group = 2.
  OneNode t(OpKind::ConvTranspose, {F32({"N", 1, 3, 3}), F32({1, 2, 3, 3})});
  EXPECT_EQ(t.infer(), F32({"N", 2, 5, 5}));
  const Attrs& a = t.node->attrs;
  EXPECT_EQ(a.get_ints("strides"), (V{1, 1}));
  EXPECT_EQ(a.get_ints("dilations"), (V{1, 1}));
  EXPECT_EQ(a.get_ints("pads"), (V{0, 0, 0, 0}));
  EXPECT_EQ(a.get_ints("output_shape"), (V{5, 5}));
  EXPECT_EQ(a.get_ints("kernel_shape"), (V{3, 3}));
  // FLOPs: 2 MACs-per-input (M/group * kernel = 18) * 9 input elements (N counts as 1).
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::ConvTranspose).flops(*t.node), 2.0 * 18 * 9);
}

TEST(InferConvTranspose, StridesPadsDilationsAndOutputPadding) {
  Attrs a;
  a.set("strides", V{3, 2});
  a.set("output_padding", V{1, 1});
  OneNode op(OpKind::ConvTranspose, {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})}, a);
  // H: 3 * 2 + 1 + 3 = 10; W: 2 * 2 + 1 + 3 = 8. output_padding becomes negative end pads.
  EXPECT_EQ(op.infer(), F32({1, 2, 10, 8}));
  EXPECT_EQ(op.node->attrs.get_ints("pads"), (V{0, 0, -1, -1}));
  EXPECT_FALSE(op.node->attrs.has("output_padding"));
  // Idempotent: the canonical attributes give the same type again.
  Attrs before = op.node->attrs;
  EXPECT_EQ(op.infer(), F32({1, 2, 10, 8}));
  EXPECT_EQ(op.node->attrs, before);

  Attrs b;
  b.set("pads", V{1, 2, 0, 1});
  b.set("dilations", V{2, 1});
  OneNode pd(OpKind::ConvTranspose, {F32({1, 1, 3, 3}), F32({1, 1, 2, 2})}, b);
  // H: 2 + (2 - 1) * 2 + 1 - 1 - 0 = 4; W: 2 + 2 - 2 - 1 = 1.
  EXPECT_EQ(pd.infer(), F32({1, 1, 4, 1}));
}

TEST(InferConvTranspose, OutputShapeAndAutoPad) {
  Attrs a;
  a.set("strides", V{2, 2});
  a.set("auto_pad", std::string("SAME_UPPER"));
  OneNode up(OpKind::ConvTranspose, {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})}, a);
  // out = in * stride = 6; full = 2 * 2 + 3 = 7, total padding 1: SAME_UPPER pads the end.
  EXPECT_EQ(up.infer(), F32({1, 2, 6, 6}));
  EXPECT_EQ(up.node->attrs.get_ints("pads"), (V{0, 0, 1, 1}));
  EXPECT_FALSE(up.node->attrs.has("auto_pad"));
  a.set("auto_pad", std::string("SAME_LOWER"));
  OneNode low(OpKind::ConvTranspose, {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})}, a);
  EXPECT_EQ(low.infer(), F32({1, 2, 6, 6}));
  EXPECT_EQ(low.node->attrs.get_ints("pads"), (V{1, 1, 0, 0}));

  Attrs s;
  s.set("strides", V{3, 2});
  s.set("output_shape", V{1, 2, 10, 8});  // the full form [N, M, spatial...] is accepted too
  OneNode os(OpKind::ConvTranspose, {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})}, s);
  EXPECT_EQ(os.infer(), F32({1, 2, 10, 8}));
  EXPECT_EQ(os.node->attrs.get_ints("output_shape"), (V{10, 8}));
}

TEST(InferConvTranspose, GroupsAndOneAndThreeD) {
  Attrs a;
  a.set("group", int64_t(2));
  OneNode g(OpKind::ConvTranspose, {F32({1, 4, 2, 2}), F32({4, 3, 2, 2}), F32({6})}, a);
  EXPECT_EQ(g.infer(), F32({1, 6, 3, 3}));
  OneNode d1(OpKind::ConvTranspose, {F32({2, 1, 5}), F32({1, 3, 4})});
  EXPECT_EQ(d1.infer(), F32({2, 3, 8}));
  OneNode d3(OpKind::ConvTranspose, {F32({1, 1, 2, 3, 4}), F32({1, 2, 2, 2, 2})});
  EXPECT_EQ(d3.infer(), F32({1, 2, 3, 4, 5}));
}

TEST(InferConvTranspose, AttributeErrors) {
  OneNode ch(OpKind::ConvTranspose, {F32({1, 3, 4, 4}), F32({2, 1, 3, 3})}, {}, 1, "ct");
  EXPECT_EQ(user_error([&] { ch.infer(); }),
            "node 'ct' (ConvTranspose): input X has 3 channels but W float32[2,1,3,3] expects 2");
  Attrs op;
  op.set("output_padding", V{1, 0});
  OneNode bad_op(OpKind::ConvTranspose, {F32({1, 1, 4, 4}), F32({1, 1, 3, 3})}, op, 1, "ct");
  EXPECT_EQ(user_error([&] { bad_op.infer(); }),
            "node 'ct' (ConvTranspose): attribute 'output_padding' value 1 must be less than "
            "stride 1 or dilation 1");
  Attrs ap;
  ap.set("auto_pad", std::string("FULL"));
  OneNode bad_ap(OpKind::ConvTranspose, {F32({1, 1, 4, 4}), F32({1, 1, 3, 3})}, ap, 1, "ct");
  EXPECT_NE(user_error([&] { bad_ap.infer(); }).find("attribute 'auto_pad' has invalid value"),
            std::string::npos);
  Attrs pd;
  pd.set("pads", V{3, 3, 3, 3});
  OneNode empty(OpKind::ConvTranspose, {F32({1, 1, 2, 2}), F32({1, 1, 2, 2})}, pd, 1, "ct");
  EXPECT_NE(user_error([&] { empty.infer(); }).find("output spatial dim 0 would have size -3"),
            std::string::npos);
}

}  // namespace
}  // namespace ingot::graph
