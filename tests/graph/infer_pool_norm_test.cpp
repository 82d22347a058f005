// Type inference for pools (ceil_mode, auto_pad), normalisation ops and reductions.
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

Attrs pool(V k, V s, V pads, int64_t ceil_mode = 0) {
  Attrs a;
  a.set("kernel_shape", k);
  a.set("strides", s);
  a.set("pads", pads);
  a.set("ceil_mode", ceil_mode);
  return a;
}

TEST(InferPool, FloorAndCeilMode) {
  // 112 + 1 + 1 - 3 = 111; floor(111/2)+1 = 56.
  EXPECT_EQ(OneNode(OpKind::MaxPool, {F32({"N", 64, 112, 112})}, pool({3, 3}, {2, 2}, {1, 1, 1, 1}))
                .infer(),
            F32({"N", 64, 56, 56}));
  // 6 - 3 = 3: floor(3/2)+1 = 2, ceil(3/2)+1 = 3.
  EXPECT_EQ(
      OneNode(OpKind::MaxPool, {F32({1, 1, 6, 6})}, pool({3, 3}, {2, 2}, {0, 0, 0, 0})).infer(),
      F32({1, 1, 2, 2}));
  EXPECT_EQ(OneNode(OpKind::AveragePool, {F32({1, 1, 6, 6})}, pool({3, 3}, {2, 2}, {0, 0, 0, 0}, 1))
                .infer(),
            F32({1, 1, 3, 3}));
  // ceil_mode drops a last window that would start in the right padding:
  // in 5, k 2, s 2, pads 1/1: span 5, ceil(5/2)+1 = 4, but (4-1)*2 = 6 >= 5+1, so 3.
  EXPECT_EQ(OneNode(OpKind::MaxPool, {F32({1, 1, 5})}, pool({2}, {2}, {1, 1}, 1)).infer(),
            F32({1, 1, 3}));
}

TEST(InferPool, AttributesAreCanonical) {
  Attrs a;
  a.set("kernel_shape", V{2, 2});
  a.set("auto_pad", std::string("SAME_UPPER"));
  OneNode t(OpKind::AveragePool, {F32({1, 3, 5, 5})}, a);
  EXPECT_EQ(t.infer(), F32({1, 3, 5, 5}));  // s=1: out 5, total pad 1 -> 0 begin, 1 end
  const Attrs& n = t.node->attrs;
  EXPECT_EQ(n.get_ints("pads"), (V{0, 0, 1, 1}));
  EXPECT_EQ(n.get_ints("strides"), (V{1, 1}));
  EXPECT_EQ(n.get_ints("dilations"), (V{1, 1}));
  EXPECT_EQ(n.get_int("ceil_mode", -1), 0);
  EXPECT_EQ(n.get_int("count_include_pad", -1), 0);
  EXPECT_FALSE(n.has("auto_pad"));
  // 25 outputs per channel * 3 channels * 4 window elements.
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::AveragePool).flops(*t.node), 75.0 * 4);
}

TEST(InferPool, MissingKernelShape) {
  OneNode t(OpKind::MaxPool, {F32({1, 1, 4, 4})}, {}, 1, "pool1");
  EXPECT_EQ(user_error([&] { t.infer(); }),
            "node 'pool1' (MaxPool): missing required attribute 'kernel_shape'");
}

TEST(InferPool, GlobalAveragePool) {
  EXPECT_EQ(OneNode(OpKind::GlobalAveragePool, {F32({"N", 512, 7, 7})}).infer(),
            F32({"N", 512, 1, 1}));
}

TEST(InferNorm, BatchNormLayerNormSoftmax) {
  OneNode bn(OpKind::BatchNormalization,
             {F32({"N", 8, 4, 4}), F32({8}), F32({8}), F32({8}), F32({8})});
  EXPECT_EQ(bn.infer(), F32({"N", 8, 4, 4}));
  EXPECT_DOUBLE_EQ(bn.node->attrs.get_float("epsilon", 0), 1e-5);
  OneNode bad(OpKind::BatchNormalization, {F32({1, 8}), F32({8}), F32({8}), F32({7}), F32({8})}, {},
              1, "bn");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'bn' (BatchNormalization): channels of X and 'input_mean' differ (8 vs 7)");

  Attrs ln_axis;
  ln_axis.set("axis", int64_t(-1));
  OneNode ln(OpKind::LayerNormalization, {F32({2, "S", 16}), F32({16}), F32({16})}, ln_axis);
  EXPECT_EQ(ln.infer(), F32({2, "S", 16}));
  EXPECT_EQ(ln.node->attrs.get_int("axis", -9), 2);

  Attrs sm_axis;
  sm_axis.set("axis", int64_t(-2));
  OneNode sm(OpKind::Softmax, {F32({2, 3, 4})}, sm_axis);
  EXPECT_EQ(sm.infer(), F32({2, 3, 4}));
  EXPECT_EQ(sm.node->attrs.get_int("axis", -9), 1);
  Attrs oob;
  oob.set("axis", int64_t(3));
  OneNode sm2(OpKind::Softmax, {F32({2, 3, 4})}, oob, 1, "sm");
  EXPECT_EQ(user_error([&] { sm2.infer(); }),
            "node 'sm' (Softmax): attribute 'axis' = 3 is out of range for rank 3");
}

TEST(InferNorm, InstanceNormalization) {
  OneNode in(OpKind::InstanceNormalization, {F32({"N", 3, 5, 7}), F32({3}), F32({3})});
  EXPECT_EQ(in.infer(), F32({"N", 3, 5, 7}));
  EXPECT_DOUBLE_EQ(in.node->attrs.get_float("epsilon", 0), 1e-5);
  OneNode bad(OpKind::InstanceNormalization, {F32({1, 4, 6}), F32({4}), F32({3})}, {}, 1, "in");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'in' (InstanceNormalization): channels of input and 'B' differ (4 vs 3)");
  OneNode flat(OpKind::InstanceNormalization, {F32({2, 4}), F32({4}), F32({4})}, {}, 1, "in2");
  EXPECT_NE(user_error([&] { flat.infer(); }).find("node 'in2' (InstanceNormalization)"),
            std::string::npos);
}

TEST(InferNorm, RMSNormalization) {
  Attrs a;
  a.set("axis", int64_t(-2));
  a.set("stash_type", int64_t(1));
  OneNode rms(OpKind::RMSNormalization, {F32({"N", 3, 5}), F32({3, 5})}, a);
  EXPECT_EQ(rms.infer(), F32({"N", 3, 5}));
  EXPECT_EQ(rms.node->attrs.get_int("axis", -9), 1);
  EXPECT_DOUBLE_EQ(rms.node->attrs.get_float("epsilon", 0), 1e-5);
  EXPECT_FALSE(rms.node->attrs.has("stash_type"));
  OneNode bad(OpKind::RMSNormalization, {F32({2, 4}), F32({3})}, {}, 1, "rms");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'rms' (RMSNormalization): shapes [2,4] and [3] do not broadcast");
  OneNode wide(OpKind::RMSNormalization, {F32({4}), F32({2, 4})}, {}, 1, "rms");
  EXPECT_EQ(user_error([&] { wide.infer(); }),
            "node 'rms' (RMSNormalization): input 'scale' float32[2,4] does not broadcast to X "
            "float32[4]");
}

TEST(InferNorm, GroupMeanVarianceAndLpNormalization) {
  Attrs g;
  g.set("num_groups", int64_t(2));
  OneNode gn(OpKind::GroupNormalization, {F32({"N", 4, 5}), F32({4}), F32({4})}, g);
  EXPECT_EQ(gn.infer(), F32({"N", 4, 5}));
  EXPECT_DOUBLE_EQ(gn.node->attrs.get_float("epsilon", 0), 1e-5);
  Attrs g3;
  g3.set("num_groups", int64_t(3));
  OneNode bad(OpKind::GroupNormalization, {F32({1, 4, 5}), F32({4}), F32({4})}, g3, 1, "gn");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'gn' (GroupNormalization): channels 4 of X are not divisible by num_groups 3");

  OneNode mvn(OpKind::MeanVarianceNormalization, {F32({2, 3, 4, 5})});
  EXPECT_EQ(mvn.infer(), F32({2, 3, 4, 5}));
  EXPECT_EQ(mvn.node->attrs.get_ints("axes"), (V{0, 2, 3}));

  Attrs lp;
  lp.set("p", int64_t(3));
  OneNode bad_p(OpKind::LpNormalization, {F32({2, 3})}, lp, 1, "lp");
  EXPECT_EQ(user_error([&] { bad_p.infer(); }),
            "node 'lp' (LpNormalization): attribute 'p' must be 1 or 2, got 3");
  OneNode l2(OpKind::LpNormalization, {F32({2, 3})});
  EXPECT_EQ(l2.infer(), F32({2, 3}));
  EXPECT_EQ(l2.node->attrs.get_int("axis", -9), 1);
  EXPECT_EQ(l2.node->attrs.get_int("p", -9), 2);
}

TEST(InferPool, LpPoolFillsP) {
  Attrs a;
  a.set("kernel_shape", V{2, 2});
  a.set("auto_pad", std::string("SAME_UPPER"));
  OneNode t(OpKind::LpPool, {F32({1, 3, 5, 5})}, a);
  EXPECT_EQ(t.infer(), F32({1, 3, 5, 5}));
  EXPECT_EQ(t.node->attrs.get_int("p", -1), 2);
  EXPECT_EQ(t.node->attrs.get_ints("pads"), (V{0, 0, 1, 1}));
}

TEST(InferReduce, AxesAndKeepdims) {
  Attrs keep;
  keep.set("axes", V{-1, 1});
  OneNode k(OpKind::ReduceMean, {F32({"N", 3, 4, 5})}, keep);
  EXPECT_EQ(k.infer(), F32({"N", 1, 4, 1}));
  EXPECT_EQ(k.node->attrs.get_ints("axes"), (V{1, 3}));
  EXPECT_EQ(k.node->attrs.get_int("keepdims", -1), 1);

  Attrs drop;
  drop.set("axes", V{0, 2});
  drop.set("keepdims", int64_t(0));
  EXPECT_EQ(OneNode(OpKind::ReduceSum, {F32({2, 3, 4})}, drop).infer(), F32({3}));

  Attrs all;
  all.set("keepdims", int64_t(0));
  EXPECT_EQ(OneNode(OpKind::ReduceSum, {F32({2, 3})}, all).infer(), F32({}));
  Attrs noop;
  noop.set("noop_with_empty_axes", int64_t(1));
  EXPECT_EQ(OneNode(OpKind::ReduceSum, {F32({2, 3})}, noop).infer(), F32({2, 3}));

  Attrs dup;
  dup.set("axes", V{1, -1});
  OneNode d(OpKind::ReduceSum, {F32({2, 3})}, dup, 1, "r");
  EXPECT_EQ(user_error([&] { d.infer(); }),
            "node 'r' (ReduceSum): attribute 'axes' repeats axis 1");
}

}  // namespace
}  // namespace ingot::graph
