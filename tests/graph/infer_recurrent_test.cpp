// Type inference of RNN, GRU and LSTM: output shapes for both layouts and directions, the
// canonical activations with one alpha / beta per activation, and attribute / shape errors.
#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace ingot::graph {
namespace {

using ops::OpKind;
using testing::F32;
using testing::OneNode;
using testing::T;
using testing::user_error;
using F = std::vector<double>;
using S = std::vector<std::string>;

std::vector<std::string> strings(const Attrs& a, const char* name) {
  return std::get<std::vector<std::string>>(a.all().at(name));
}

TEST(InferRecurrent, RnnShapesAndDefaults) {
  // X [seq 5, batch 2, input 3], hidden 4.
  OneNode n(OpKind::RNN, {F32({5, "B", 3}), F32({1, 4, 3}), F32({1, 4, 4})}, {}, 2);
  EXPECT_EQ(n.infer(0), F32({5, 1, "B", 4}));
  EXPECT_EQ(n.infer(1), F32({1, "B", 4}));
  const Attrs& a = n.node->attrs;
  EXPECT_EQ(a.get_int("hidden_size", 0), 4);
  EXPECT_EQ(a.get_string("direction", ""), "forward");
  EXPECT_EQ(a.get_int("layout", -1), 0);
  EXPECT_EQ(strings(a, "activations"), (S{"Tanh"}));
  EXPECT_EQ(a.get_floats("activation_alpha"), (F{0}));
}

TEST(InferRecurrent, BidirectionalBatchMajorLstm) {
  Attrs a;
  a.set("direction", std::string("bidirectional"));
  a.set("layout", int64_t(1));
  a.set("hidden_size", int64_t(3));
  // X [batch 2, seq 4, input 5]; W [2, 4*3, 5]; R [2, 12, 3]; B [2, 24].
  OneNode n(OpKind::LSTM, {F32({2, 4, 5}), F32({2, 12, 5}), F32({2, 12, 3}), F32({2, 24})}, a, 3);
  EXPECT_EQ(n.infer(0), F32({2, 4, 2, 3}));
  EXPECT_EQ(n.infer(1), F32({2, 2, 3}));
  EXPECT_EQ(n.infer(2), F32({2, 2, 3}));
  EXPECT_EQ(strings(n.node->attrs, "activations"),
            (S{"Sigmoid", "Tanh", "Tanh", "Sigmoid", "Tanh", "Tanh"}));
}

TEST(InferRecurrent, ActivationAlphasAreConsumedInOrder) {
  Attrs a;
  a.set("activations", S{"leakyrelu", "Tanh", "hardsigmoid"});
  a.set("activation_alpha", F{0.1, 0.3});
  a.set("activation_beta", F{0.6});
  a.set("hidden_size", int64_t(2));
  a.set("linear_before_reset", int64_t(1));
  a.set("direction", std::string("bidirectional"));
  // GRU bidirectional: 2 activations per direction, but 3 given.
  OneNode bad(OpKind::GRU, {F32({1, 1, 2}), F32({2, 6, 2}), F32({2, 6, 2})}, a, 2, "g");
  EXPECT_EQ(user_error([&] { bad.infer(); }),
            "node 'g' (GRU): attribute 'activations' has 3 values, expected 4 (2 per direction)");
  a.set("activations", S{"leakyrelu", "Tanh", "hardsigmoid", "Relu"});
  OneNode n(OpKind::GRU, {F32({1, 1, 2}), F32({2, 6, 2}), F32({2, 6, 2})}, a, 2);
  EXPECT_EQ(n.infer(0), F32({1, 2, 1, 2}));
  const Attrs& c = n.node->attrs;
  EXPECT_EQ(strings(c, "activations"), (S{"LeakyRelu", "Tanh", "HardSigmoid", "Relu"}));
  EXPECT_EQ(c.get_floats("activation_alpha"), (F{0.1, 0, 0.3, 0}));
  EXPECT_EQ(c.get_floats("activation_beta"), (F{0, 0, 0.6, 0}));
  EXPECT_EQ(c.get_int("linear_before_reset", 0), 1);
  // Idempotent.
  Attrs before = c;
  n.infer();
  EXPECT_EQ(n.node->attrs, before);
}

TEST(InferRecurrent, Errors) {
  OneNode rows(OpKind::GRU, {F32({1, 1, 2}), F32({1, 6, 2}), F32({1, 9, 3})}, {}, 1, "g");
  EXPECT_EQ(user_error([&] { rows.infer(); }),
            "node 'g' (GRU): input 'W' float32[1,6,2] has 6 rows, expected 9");
  Attrs act;
  act.set("activations", S{"Swish"});
  OneNode bad_act(OpKind::RNN, {F32({1, 1, 2}), F32({1, 2, 2}), F32({1, 2, 2})}, act, 1, "r");
  EXPECT_NE(user_error([&] { bad_act.infer(); }).find("activation \"Swish\" is not supported"),
            std::string::npos);
  Attrs fg;
  fg.set("input_forget", int64_t(1));
  OneNode coupled(OpKind::LSTM, {F32({1, 1, 2}), F32({1, 8, 2}), F32({1, 8, 2})}, fg, 1, "l");
  EXPECT_NE(user_error([&] { coupled.infer(); }).find("'input_forget' = 1"), std::string::npos);
  OneNode lens(OpKind::RNN,
               {F32({1, 2, 2}), F32({1, 2, 2}), F32({1, 2, 2}), F32({1, 4}), T(DType::kI32, {3})},
               {}, 1, "r");
  EXPECT_EQ(user_error([&] { lens.infer(); }),
            "node 'r' (RNN): input 'sequence_lens' int32[3] has 3 entries (batch), expected 2");
}

}  // namespace
}  // namespace ingot::graph
