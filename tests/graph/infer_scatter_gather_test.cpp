// Type inference of GatherND (batch_dims), ScatterND and ScatterElements: shapes, defaults and
// errors naming the node.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferScatterGather, GatherNDShapes) {
  OneNode g(OpKind::GatherND, {F32({"N", 3, 4, 5}), T(DType::kI64, {"N", 7, 2})}, {}, 1, "g");
  Attrs b1;
  b1.set("batch_dims", int64_t(1));
  OneNode gb(OpKind::GatherND, {F32({"N", 3, 4, 5}), T(DType::kI64, {"N", 7, 2})}, b1);
  EXPECT_EQ(gb.infer(), F32({"N", 7, 5}));  // indices[:-1] ++ data[1 + 2:]
  EXPECT_EQ(g.infer(), F32({"N", 7, 4, 5}));
  OneNode bad(OpKind::GatherND, {F32({3, 4}), T(DType::kI64, {2, 3})}, {}, 1, "g");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'g' (GatherND): index tuples of length 3 do not fit data float32[3,4] "
            "(batch_dims 0)");
  OneNode fl(OpKind::GatherND, {F32({3, 4}), F32({2, 1})}, {}, 1, "g");
  EXPECT_EQ(user_error([&] { fl.infer(); }),
            "node 'g' (GatherND): input 'indices' must be int32 or int64, got float32[2,1]");
}

TEST(InferScatterGather, ScatterNDAndScatterElements) {
  OneNode s(OpKind::ScatterND, {F32({4, 4, 4}), T(DType::kI64, {2, 1}), F32({2, 4, 4})});
  EXPECT_EQ(s.infer(), F32({4, 4, 4}));
  EXPECT_EQ(s.node->attrs.get_string("reduction", ""), "none");
  OneNode bad(OpKind::ScatterND, {F32({4, 4, 4}), T(DType::kI64, {2, 1}), F32({2, 4})}, {}, 1, "s");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 's' (ScatterND): 'updates' float32[2,4] must have rank 3 for data "
            "float32[4,4,4] and indices int64[2,1]");
  Attrs a;
  a.set("axis", int64_t(-1));
  a.set("reduction", std::string("sub"));
  OneNode e(OpKind::ScatterElements, {F32({3, 5}), T(DType::kI32, {2, 2}), F32({2, 2})}, a, 1, "e");
  EXPECT_EQ(user_error([&] { e.infer(); }),
            "node 'e' (ScatterElements): attribute 'reduction' = 'sub' is not supported (valid: "
            "none, add, mul, max, min)");
  e.node->attrs.set("reduction", std::string("max"));
  EXPECT_EQ(e.infer(), F32({3, 5}));
  EXPECT_EQ(e.node->attrs.get_int("axis", 0), 1);
}

}  // namespace
}  // namespace ingot::graph
