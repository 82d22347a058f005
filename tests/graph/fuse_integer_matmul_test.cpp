// fuse_integer_matmul on the importer's form of MatMulInteger: an int8 constant B (widened by a
// Cast, or already folded to int32) becomes IntMatMul, the activation's zero point subtracted
// after as zero_point * column sums; B values outside int8, or a uint8 B, stay as they are.
// The arithmetic against numpy: tests/python/test_int8_products.py.
#include <gtest/gtest.h>

#include <cstring>

#include "graph/transforms/fuse_integer_matmul.h"
#include "graph/transforms/infer_types.h"
#include "graph/verifier.h"
#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::count_ops;
using testing::T;

TensorPtr tensor(DType d, std::vector<int64_t> shape, const void* data, size_t bytes) {
  std::vector<uint8_t> b(bytes);
  std::memcpy(b.data(), data, bytes);
  return std::make_shared<Tensor>(d, std::move(shape), std::move(b));
}

Value* cast_i32(Graph& g, const std::string& name, Value* v) {
  Attrs a;
  a.set("to", int64_t(DType::kI32));
  return g.add_node(OpKind::Cast, name, {v}, {name + "_out"}, a)->outputs[0];
}

// MatMul(Cast(a) - Cast(zp), B) with a uint8 [3, 4], zp a run-time uint8 scalar, B [4, 2] given
// as `b` (int32 constant) or, with `widen`, as Cast<int32> of an int8 constant.
struct Graphs {
  Graph g;
  Value *a = nullptr, *zp = nullptr;
  explicit Graphs(const std::vector<int32_t>& b, bool widen) {
    a = g.add_value("a", T(DType::kU8, {3, 4}));
    zp = g.add_value("zp", T(DType::kU8, {}));
    g.inputs = {a, zp};
    Value* centred = g.add_node(OpKind::Sub, "centre",
                                {cast_i32(g, "ca", a), cast_i32(g, "cz", zp)}, {"centred"})
                         ->outputs[0];
    Value* bv = nullptr;
    if (widen) {
      std::vector<int8_t> b8(b.begin(), b.end());
      bv = cast_i32(g, "cb", g.add_constant("b8", tensor(DType::kI8, {4, 2}, b8.data(), 8)));
    } else {
      bv = g.add_constant("b32", tensor(DType::kI32, {4, 2}, b.data(), 32));
    }
    g.outputs = {g.add_node(OpKind::MatMul, "mm", {centred, bv}, {"y"})->outputs[0]};
    infer_types(g);
  }
};

TEST(FuseIntegerMatmul, Int8WeightsBecomeIntMatMulLessTheZeroPointTerm) {
  for (bool widen : {true, false}) {
    Graphs t({1, -5, -2, 6, 3, 7, 4, -128}, widen);
    fuse_integer_matmul(t.g);
    verify_graph(t.g);
    ASSERT_EQ(count_ops(t.g, OpKind::IntMatMul), 1) << "widen " << widen;
    EXPECT_EQ(count_ops(t.g, OpKind::MatMul), 0);
    const Node& out = *t.g.outputs[0]->producer;
    ASSERT_EQ(out.op, OpKind::Sub);
    EXPECT_EQ(out.outputs[0]->name, "y");
    const Node& p = *out.inputs[0]->producer;
    ASSERT_EQ(p.op, OpKind::IntMatMul);
    EXPECT_EQ(p.inputs[0], t.a);
    EXPECT_EQ(p.inputs[1]->type.str(), "int8[4,2]");
    const Node& term = *out.inputs[1]->producer;
    ASSERT_EQ(term.op, OpKind::Mul);
    // The zero point widened, times the column sums 6 and -120.
    EXPECT_EQ(term.inputs[0]->producer->inputs[0], t.zp);
    EXPECT_EQ(term.inputs[1]->constant->get_i64(0), 6);
    EXPECT_EQ(term.inputs[1]->constant->get_i64(1), -120);
  }
}

TEST(FuseIntegerMatmul, WeightsOutsideInt8StayAnInt32MatMul) {
  Graphs t({1, -5, -2, 6, 3, 7, 4, 200}, false);
  fuse_integer_matmul(t.g);
  verify_graph(t.g);
  EXPECT_EQ(count_ops(t.g, OpKind::IntMatMul), 0);
  EXPECT_EQ(count_ops(t.g, OpKind::MatMul), 1);
}

}  // namespace
}  // namespace ingot::graph
