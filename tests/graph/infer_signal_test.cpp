// Type inference of the signal ops: window sizes from constant inputs, DFT output shapes (full,
// rfft, irfft, dft_length, axis from an input), STFT frames and bins, MelWeightMatrix.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;

TEST(InferSignal, WindowSizeFromConstant) {
  Graph g;
  Value* size = g.add_constant("size", testing::i64_tensor({}, {10}));
  Attrs a;
  a.set("dtype", int64_t(DType::kF16));
  Node* n = g.add_node(OpKind::HannWindow, "w", {size}, {"y"}, a);
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, T(DType::kF16, {10}));
  EXPECT_TRUE(n->inputs.empty());
  EXPECT_EQ(n->attrs.get_int("size", 0), 10);
  EXPECT_EQ(n->attrs.get_int("periodic", 0), 1);

  Attrs bad;
  bad.set("size", int64_t(4));
  bad.set("periodic", int64_t(2));
  OneNode p(OpKind::BlackmanWindow, {}, bad, 1, "w");
  EXPECT_EQ(user_error([&] { p.infer(); }),
            "node 'w' (BlackmanWindow): attribute 'periodic' must be 0 or 1, got 2");
  // A size the caller gives (a graph input) is read at run time: the length is a value symbol.
  OneNode rt(OpKind::HammingWindow, {T(DType::kI64, {})}, {}, 1, "w");
  TensorType t = rt.infer();
  ASSERT_EQ(t.rank(), 1);
  EXPECT_FALSE(t.shape[0].is_static());
  OneNode rf(OpKind::HammingWindow, {T(DType::kF32, {})}, {}, 1, "w");
  EXPECT_EQ(user_error([&] { rf.infer(); }),
            "node 'w' (HammingWindow): input 'size' must be an integer scalar, got float32[]");
}

TensorType dft(TensorType x, int64_t axis, int inverse, int onesided, int64_t len = -1) {
  Attrs a;
  a.set("axis", axis);
  a.set("inverse", int64_t(inverse));
  a.set("onesided", int64_t(onesided));
  if (len > 0) a.set("dft_length", len);
  OneNode n(OpKind::DFT, {x}, a, 1, "d");
  return n.infer();
}

TEST(InferSignal, DftShapes) {
  EXPECT_EQ(dft(F32({1, 10, 10, 1}), 1, 0, 0), F32({1, 10, 10, 2}));
  EXPECT_EQ(dft(F32({1, 10, 10, 1}), -2, 0, 1), F32({1, 10, 6, 2}));  // rfft
  EXPECT_EQ(dft(F32({1, 6, 10, 2}), 1, 1, 1), F32({1, 10, 10, 1}));   // irfft: 2 * (6 - 1)
  EXPECT_EQ(dft(F32({1, 6, 10, 2}), 1, 1, 1, 11), F32({1, 11, 10, 1}));
  EXPECT_EQ(dft(F32({4, 5, 2}), 1, 0, 0, 8), F32({4, 8, 2}));
  EXPECT_EQ(dft(F32({"N", 5, 2}), 1, 1, 0), F32({"N", 5, 2}));
  EXPECT_EQ(user_error([] {
              dft(F32({4, 5, 2}), 2, 0, 0);
            }),
            "node 'd' (DFT): 'axis' = 2 is out of range for input float32[4,5,2] (the last dim "
            "holds the complex parts)");
  EXPECT_EQ(user_error([] {
              dft(F32({4, 5, 3}), 1, 0, 0);
            }),
            "node 'd' (DFT): the last dim of input 'input' float32[4,5,3] must be 1 (real) or 2 "
            "(complex)");
}

TEST(InferSignal, DftAxisAndLengthFromInputs) {
  Graph g;
  Value* x = g.add_value("x", F32({2, 8, 3, 1}));
  g.inputs = {x};
  Value* len = g.add_constant("len", testing::i64_tensor({}, {6}));
  Value* axis = g.add_constant("axis", testing::i64_tensor({}, {-3}));
  Attrs a;
  a.set("onesided", int64_t(1));
  Node* n = g.add_node(OpKind::DFT, "d", {x, len, axis}, {"y"}, a);
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({2, 4, 3, 2}));
  EXPECT_EQ(n->inputs.size(), 1u);
  EXPECT_EQ(n->attrs.get_int("axis", 0), 1);
  EXPECT_EQ(n->attrs.get_int("dft_length", 0), 6);
  EXPECT_EQ(n->attrs.get_int("inverse", 1), 0);
}

TEST(InferSignal, StftFramesAndBins) {
  Graph g;
  Value* x = g.add_value("x", F32({1, 128, 1}));
  Value* w = g.add_value("w", F32({16}));
  g.inputs = {x, w};
  Value* step = g.add_constant("step", testing::i64_tensor({}, {8}));
  Node* n = g.add_node(OpKind::STFT, "s", {x, step, w}, {"y"});
  g.outputs = n->outputs;
  infer_types(g);
  EXPECT_EQ(g.outputs[0]->type, F32({1, 15, 9, 2}));
  EXPECT_EQ(n->attrs.get_int("frame_length", 0), 16);
  EXPECT_EQ(n->attrs.get_int("onesided", 0), 1);
  ASSERT_EQ(n->inputs.size(), 3u);
  EXPECT_EQ(n->inputs[1], nullptr);

  Attrs a;
  a.set("frame_step", int64_t(5));
  a.set("frame_length", int64_t(12));
  a.set("onesided", int64_t(0));
  OneNode two(OpKind::STFT, {F32({2, 30, 2})}, a, 1, "s");
  EXPECT_EQ(two.infer(), F32({2, 4, 12, 2}));
  a.set("frame_length", int64_t(8));
  OneNode mismatch(OpKind::STFT, {F32({2, 30, 2}), F32({}), F32({16})}, a, 1, "s");
  mismatch.node->inputs[1] = nullptr;
  EXPECT_EQ(user_error([&] { mismatch.infer(); }),
            "node 's' (STFT): 'frame_length' = 8 differs from the window length 16");
}

TEST(InferSignal, MelWeightMatrix) {
  Attrs a;
  a.set("num_mel_bins", int64_t(8));
  a.set("dft_length", int64_t(16));
  OneNode m(OpKind::MelWeightMatrix,
            {T(DType::kI32, {}), T(DType::kI32, {}), T(DType::kI32, {}), F32({}), F32({})}, a, 1,
            "m");
  m.node->inputs[0] = m.node->inputs[1] = nullptr;
  EXPECT_EQ(m.infer(), F32({9, 8}));
  OneNode bad(OpKind::MelWeightMatrix,
              {T(DType::kI32, {}), T(DType::kI32, {}), F32({}), F32({}), F32({})}, a, 1, "m");
  bad.node->inputs[0] = bad.node->inputs[1] = nullptr;
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'm' (MelWeightMatrix): input 'sample_rate' must be int32 or int64, got "
            "float32[]");
}

}  // namespace
}  // namespace ingot::graph
