// Import of com.microsoft MatMulNBits (frontend/onnx/convert_matmul_nbits.cpp): the integers
// re-laid into WQMatMul's [K(/2), N] form and the scales into [k_blocks, N], checked against the
// closed forms of the ONNX Runtime contrib op's layout; zero points other than 2^(bits-1) as the
// block-sum correction; K not whole blocks or a reordering g_idx as a float32 constant; bad
// attributes and inputs as one-line user errors naming the node.
#include <gtest/gtest.h>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using graph::DType;
using ops::OpKind;

onnx::TensorProto u8_tensor(const std::string& name, const Ints& dims,
                            const std::vector<uint8_t>& vals) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::UINT8);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(vals.data()), vals.size()));
  return t;
}

// A model with x [2, K] float32 and one MatMulNBits node "mm" reading `inputs`.
ModelBuilder nbits_model(int64_t k, int64_t n, int64_t bits, int64_t block,
                         const std::vector<std::string>& inputs) {
  ModelBuilder b(17);
  auto* o = b.model().add_opset_import();
  o->set_domain("com.microsoft");
  o->set_version(1);
  b.input("x", {2, k});
  auto* node = b.node("MatMulNBits", inputs, {"y"}, "mm");
  node->set_domain("com.microsoft");
  set_attr(node, "K", k);
  set_attr(node, "N", n);
  set_attr(node, "bits", bits);
  set_attr(node, "block_size", block);
  b.output("y");
  return b;
}

const graph::Tensor& constant_of(const graph::Node* n, int input) {
  EXPECT_TRUE(n->inputs[size_t(input)]->is_constant());
  return *n->inputs[size_t(input)]->constant;
}

TEST(OnnxMatMulNBits, FourBitSymmetricBecomesWQMatMulWithTheNibblesTransposed) {
  // K = 32, N = 2, blocks of 16: B [2, 2, 8]; column n, block g, byte i = 16 n + 8 g + i.
  std::vector<uint8_t> q(32);
  for (size_t i = 0; i < q.size(); ++i) q[i] = uint8_t(i * 7 + 3);
  ModelBuilder b = nbits_model(32, 2, 4, 16, {"x", "b", "s"});
  b.init(u8_tensor("b", {2, 2, 8}, q));
  b.init(f32_tensor("s", {4}, {0.5f, 0.25f, 2.0f, 4.0f}));  // [n][g]
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* mm = find_node(*g, "mm");
  ASSERT_EQ(mm->op, OpKind::WQMatMul);
  EXPECT_EQ(mm->attrs.get_int("bits", 0), 4);
  EXPECT_EQ(mm->attrs.get_int("group_size", 0), 16);
  EXPECT_EQ(mm->outputs[0]->type.str(), "float32[2,2]");
  // WQMatMul's byte m of column n holds k = 2m (low) and 2m + 1 (high): MatMulNBits' byte m of
  // column n, unchanged (both store the weight + 8).
  const graph::Tensor& wq = constant_of(mm, 1);
  ASSERT_EQ(wq.shape(), (std::vector<int64_t>{16, 2}));
  for (int64_t m = 0; m < 16; ++m)
    for (int64_t n = 0; n < 2; ++n) EXPECT_EQ(wq.get_i64(m * 2 + n), q[size_t(n * 16 + m)]);
  EXPECT_EQ(f64_values(constant_of(mm, 2)), (std::vector<double>{0.5, 2.0, 0.25, 4.0}));
}

TEST(OnnxMatMulNBits, EightBitZeroPointsAddTheBlockSumCorrection) {
  // K = 32, N = 1, blocks of 16, zero points 128 (the default) and 100.
  std::vector<uint8_t> q(32);
  for (size_t i = 0; i < q.size(); ++i) q[i] = uint8_t(100 + 5 * i);
  ModelBuilder b = nbits_model(32, 1, 8, 16, {"x", "b", "s", "zp"});
  b.init(u8_tensor("b", {1, 2, 16}, q));
  b.init(f32_tensor("s", {2}, {0.5f, 0.25f}));
  b.init(u8_tensor("zp", {2}, {128, 100}));
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* wq = find_node(*g, "mm/wq_matmul");
  ASSERT_EQ(wq->op, OpKind::WQMatMul);
  const graph::Tensor& ints = constant_of(wq, 1);
  EXPECT_EQ(ints.dtype(), DType::kI8);
  for (int64_t k = 0; k < 32; ++k) EXPECT_EQ(ints.get_i64(k), int64_t(q[size_t(k)]) - 128);
  const graph::Node* term = find_node(*g, "mm/zero_point_term");
  // (128 - zp) * scale per block: 0 and 28 * 0.25.
  EXPECT_EQ(f64_values(constant_of(term, 1)), (std::vector<double>{0.0, 7.0}));
  EXPECT_EQ(term->inputs[0]->type.str(), "float32[2,2]");  // x's block sums
  const graph::Node* y = find_node(*g, "mm");
  EXPECT_EQ(y->op, OpKind::Add);
  EXPECT_EQ(y->outputs[0]->type.str(), "float32[2,1]");
}

TEST(OnnxMatMulNBits, PartialBlocksAndReorderedGroupsDequantizeAtImport) {
  // K = 20 in blocks of 16 (the second block partial): B [1, 2, 8] 4-bit, zero point 8.
  std::vector<uint8_t> q(16, 0x9A);  // low nibble 10, high 9
  ModelBuilder b = nbits_model(20, 1, 4, 16, {"x", "b", "s"});
  b.init(u8_tensor("b", {1, 2, 8}, q));
  b.init(f32_tensor("s", {2}, {0.5f, 2.0f}));
  auto g = b.import();
  graph::infer_types(*g);
  const graph::Node* mm = find_node(*g, "mm");
  ASSERT_EQ(mm->op, OpKind::MatMul);
  std::vector<double> want;
  for (int k = 0; k < 20; ++k) want.push_back((k % 2 == 0 ? 10 - 8 : 9 - 8) * (k < 16 ? 0.5 : 2.0));
  EXPECT_EQ(f64_values(constant_of(mm, 1)), want);

  // K = 32 with g_idx sending k to block 1 - k / 16.
  ModelBuilder r = nbits_model(32, 1, 4, 16, {"x", "b", "s", "", "gi"});
  r.init(u8_tensor("b", {1, 2, 8}, q));
  r.init(f32_tensor("s", {2}, {0.5f, 2.0f}));
  Ints gi;
  for (int k = 0; k < 32; ++k) gi.push_back(1 - k / 16);
  onnx::TensorProto gt = i64_tensor("gi", {32}, gi);
  gt.set_data_type(onnx::TensorProto::INT32);
  gt.clear_int64_data();
  for (int64_t v : gi) gt.add_int32_data(int32_t(v));
  r.init(gt);
  auto rg = r.import();
  const graph::Node* rm = find_node(*rg, "mm");
  ASSERT_EQ(rm->op, OpKind::MatMul);
  EXPECT_EQ(constant_of(rm, 1).get_f64(0), 2 * 2.0);
  EXPECT_EQ(constant_of(rm, 1).get_f64(16), 2 * 0.5);
}

TEST(OnnxMatMulNBits, BadAttributesAndInputsAreUserErrors) {
  auto build = [](int64_t bits, int64_t block, size_t bytes) {
    ModelBuilder b = nbits_model(32, 1, bits, block, {"x", "b", "s"});
    b.init(u8_tensor("b", {int64_t(bytes)}, std::vector<uint8_t>(bytes, 0)));
    b.init(f32_tensor("s", {2}, {1.0f, 1.0f}));
    return b;
  };
  EXPECT_EQ(user_error([&] { build(3, 16, 12).import(); }),
            "node 'mm' (MatMulNBits): bits 3 is not supported (4 or 8)");
  EXPECT_EQ(user_error([&] { build(4, 24, 16).import(); }),
            "node 'mm' (MatMulNBits): block_size 24 must be a power of two >= 16");
  EXPECT_EQ(user_error([&] { build(4, 16, 15).import(); }),
            "node 'mm' (MatMulNBits): input 'B' must be uint8 [N=1, k_blocks=2, blob=8], got "
            "uint8[15]");
  ModelBuilder other(17);
  other.model().add_opset_import()->set_domain("com.microsoft");
  other.input("x", {2});
  other.node("FusedMatMul", {"x", "x"}, {"y"}, "f")->set_domain("com.microsoft");
  other.output("y");
  EXPECT_EQ(user_error([&] { other.import(); }),
            "node 'f' (FusedMatMul, opset 0): unsupported operator in domain 'com.microsoft'");
}

}  // namespace
}  // namespace ingot::frontend::testing
