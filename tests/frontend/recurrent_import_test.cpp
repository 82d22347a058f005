// Import of RNN / GRU / LSTM: omitted optional inputs stay empty slots, the string-list attribute
// 'activations' and the other attributes reach the graph node, and inference makes them
// canonical.
#include <gtest/gtest.h>

#include "graph/transforms/infer_types.h"
#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

using F = std::vector<double>;

TEST(OnnxRecurrent, GruWithActivationsAndOmittedInputs) {
  ModelBuilder b(14);
  b.input("X", {2, 1, 3});
  b.input("W", {1, 6, 3});
  b.input("R", {1, 6, 2});
  b.input("h0", {1, 1, 2});
  // B and sequence_lens omitted before initial_h.
  auto* n = b.node("GRU", {"X", "W", "R", "", "", "h0"}, {"Y", "Y_h"}, "gru");
  set_attr(n, "hidden_size", int64_t(2));
  set_attr(n, "linear_before_reset", int64_t(1));
  set_attr(n, "activation_alpha", std::vector<float>{0.5f});
  auto* acts = n->add_attribute();
  acts->set_name("activations");
  acts->set_type(onnx::AttributeProto::STRINGS);
  acts->add_strings("HardSigmoid");
  acts->add_strings("tanh");
  b.output("Y");
  b.output("Y_h");
  auto g = b.import();
  const graph::Node* gru = find_node(*g, "gru");
  ASSERT_EQ(gru->op, ops::OpKind::GRU);
  ASSERT_EQ(gru->inputs.size(), 6u);
  EXPECT_EQ(gru->inputs[3], nullptr);
  EXPECT_EQ(gru->inputs[4], nullptr);
  using S = std::vector<std::string>;
  auto acts_of = [&] { return std::get<S>(gru->attrs.all().at("activations")); };
  EXPECT_EQ(acts_of(), (S{"HardSigmoid", "tanh"}));
  EXPECT_EQ(gru->attrs.get_floats("activation_alpha"), (F{0.5}));
  EXPECT_EQ(gru->attrs.get_int("linear_before_reset", 0), 1);
  // Inference: canonical spelling, one alpha / beta per activation, the output shapes.
  graph::infer_types(*g);
  EXPECT_EQ(acts_of(), (S{"HardSigmoid", "Tanh"}));
  EXPECT_EQ(gru->attrs.get_floats("activation_alpha"), (F{0.5, 0}));
  EXPECT_EQ(gru->attrs.get_floats("activation_beta"), (F{0.5, 0}));  // HardSigmoid's default
  EXPECT_EQ(gru->outputs[0]->type.str(), "float32[2,1,1,2]");
}

}  // namespace
}  // namespace ingot::frontend::testing
