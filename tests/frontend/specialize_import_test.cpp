// Importing with specialised inputs (ImportOptions::specialized_inputs, `ingot compile
// --specialize-inputs`): the input stays a graph input with its declared type, its readers see a
// constant (so a Squeeze's axes reach the attribute), an output that is the input itself stays
// the input, and values that do not fit the declared input are errors naming the source.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "onnx_builder.h"

namespace ingot::frontend::testing {
namespace {

graph::TensorPtr i64_value(const std::vector<int64_t>& shape, const std::vector<int64_t>& vals) {
  std::vector<uint8_t> bytes(vals.size() * 8);
  std::memcpy(bytes.data(), vals.data(), bytes.size());
  return std::make_shared<graph::Tensor>(graph::DType::kI64, shape, std::move(bytes));
}

// y = Squeeze(x, axes) with axes an int64[dims] graph input, also returned as output "axes".
ModelBuilder squeeze_model(const Ints& axes_dims = {1}) {
  ModelBuilder b(13);
  b.input("x", {1, 3, 1});
  b.input("axes", axes_dims, onnx::TensorProto::INT64);
  b.node("Squeeze", {"x", "axes"}, {"y"}, "sq");
  b.output("y");
  b.output("axes");
  return b;
}

std::unique_ptr<graph::Graph> import_with(const ModelBuilder& b, graph::TensorPtr axes) {
  ImportOptions o;
  o.specialized_inputs["axes"] = std::move(axes);
  o.specialized_source = "'v.npz'";
  return import_onnx_bytes(b.bytes(), "", "test.onnx", o);
}

TEST(OnnxSpecialize, InputStaysAndReadersSeeTheValue) {
  auto g = import_with(squeeze_model(), i64_value({1}, {2}));
  ASSERT_EQ(g->inputs.size(), 2u);
  EXPECT_EQ(g->inputs[1]->name, "axes");
  EXPECT_FALSE(g->inputs[1]->is_constant());
  EXPECT_EQ(g->inputs[1]->type.str(), "int64[1]");
  const graph::Node* sq = find_node(*g, "sq");
  EXPECT_EQ(sq->attrs.get_ints("axes"), Ints{2});
  for (const graph::Value* in : sq->inputs) EXPECT_NE(in, g->inputs[1]);
  ASSERT_EQ(g->outputs.size(), 2u);
  EXPECT_EQ(g->outputs[1], g->inputs[1]);  // the output is the run-time input itself
}

TEST(OnnxSpecialize, SymbolicDimAcceptsAnySize) {
  auto g = import_with(squeeze_model({-1}), i64_value({2}, {0, 2}));
  EXPECT_EQ(find_node(*g, "sq")->attrs.get_ints("axes"), (Ints{0, 2}));
  EXPECT_FALSE(g->inputs[1]->type.is_static());  // bound later, by the driver
}

TEST(OnnxSpecialize, ValuesThatDoNotFitAreErrors) {
  ModelBuilder b = squeeze_model();
  EXPECT_EQ(user_error([&] {
              import_with(b, i64_value({2}, {0, 2}));
            }),
            "'v.npz': input 'axes' of the model is int64[1], but its specialised value is "
            "int64[2]");
  EXPECT_EQ(user_error([&] { import_with(b, i64_value({}, {0})); }),
            "'v.npz': input 'axes' of the model is int64[1], but its specialised value is "
            "int64[]");
  auto f32 = std::make_shared<graph::Tensor>(graph::DType::kF32, std::vector<int64_t>{1},
                                             std::vector<uint8_t>(4, 0));
  EXPECT_EQ(user_error([&] { import_with(b, f32); }),
            "'v.npz': input 'axes' of the model is int64[1], but its specialised value is "
            "float32[1]");
  ImportOptions o;
  o.specialized_inputs["axis"] = i64_value({1}, {0});
  o.specialized_source = "'v.npz'";
  EXPECT_EQ(user_error([&] { import_onnx_bytes(b.bytes(), "", "test.onnx", o); }),
            "'v.npz': 'axis' is not an input of model 'test.onnx' (inputs: x, axes)");
}

}  // namespace
}  // namespace ingot::frontend::testing
