// Type inference for Einsum: explicit and implicit outputs, diagonals, ellipsis broadcasting and
// equation errors.
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

Attrs eq(const char* e) {
  Attrs a;
  a.set("equation", std::string(e));
  return a;
}

TEST(InferEinsum, ExplicitAndImplicit) {
  OneNode bmm(OpKind::Einsum, {F32({"B", 2, 3}), F32({"B", 3, 4})}, eq("bij, bjk -> bik"));
  EXPECT_EQ(bmm.infer(), F32({"B", 2, 4}));
  EXPECT_EQ(bmm.node->attrs.get_string("equation", ""), "bij,bjk->bik");
  EXPECT_DOUBLE_EQ(ops::op_info(OpKind::Einsum).flops(*bmm.node), 2.0 * 2 * 3 * 4);  // B counts 1
  // Implicit: letters occurring once, alphabetically (upper case first, as numpy).
  OneNode imp(OpKind::Einsum, {F32({2, 3}), F32({3, 5})}, eq("kj,jA"));
  EXPECT_EQ(imp.infer(), F32({5, 2}));
  EXPECT_EQ(imp.node->attrs.get_string("equation", ""), "kj,jA->Ak");
  OneNode dot(OpKind::Einsum, {F32({5}), F32({5})}, eq("i,i"));
  EXPECT_EQ(dot.infer(), F32({}));
  OneNode scalar(OpKind::Einsum, {T(DType::kI32, {})}, eq("->"));
  EXPECT_EQ(scalar.infer(), T(DType::kI32, {}));
}

TEST(InferEinsum, DiagonalAndEllipsis) {
  OneNode diag(OpKind::Einsum, {F32({3, 5, 5})}, eq("...ii ->...i"));
  EXPECT_EQ(diag.infer(), F32({3, 5}));
  OneNode bc(OpKind::Einsum, {F32({2, 1, 2, 3}), F32({4, 3, 6})}, eq("...ij,...jk"));
  EXPECT_EQ(bc.infer(), F32({2, 4, 2, 6}));
  EXPECT_EQ(bc.node->attrs.get_string("equation", ""), "...ij,...jk->...ik");
}

TEST(InferEinsum, Errors) {
  OneNode rank(OpKind::Einsum, {F32({2, 3})}, eq("ijk->i"), 1, "e");
  EXPECT_EQ(user_error([&] { rank.infer(); }),
            "node 'e' (Einsum): term 0 of equation 'ijk->i' does not match the rank 2 of input 0");
  OneNode out(OpKind::Einsum, {F32({2, 3})}, eq("ij->iz"), 1, "e");
  EXPECT_EQ(user_error([&] { out.infer(); }),
            "node 'e' (Einsum): output label 'z' of equation 'ij->iz' is not in any input");
  OneNode rep(OpKind::Einsum, {F32({2, 3})}, eq("ij->ii"), 1, "e");
  EXPECT_NE(user_error([&] { rep.infer(); }).find("is repeated"), std::string::npos);
  OneNode count(OpKind::Einsum, {F32({2, 3})}, eq("ij,jk->ik"), 1, "e");
  EXPECT_NE(user_error([&] { count.infer(); }).find("has 2 operand terms but the node has 1"),
            std::string::npos);
  OneNode dims(OpKind::Einsum, {F32({2, 3}), F32({4, 5})}, eq("ij,jk->ik"), 1, "e");
  EXPECT_NE(user_error([&] { dims.infer(); }).find("node 'e' (Einsum)"), std::string::npos);
  OneNode chars(OpKind::Einsum, {F32({2, 3})}, eq("i1->i"), 1, "e");
  EXPECT_NE(user_error([&] { chars.infer(); }).find("invalid character '1'"), std::string::npos);
}

}  // namespace
}  // namespace ingot::graph
