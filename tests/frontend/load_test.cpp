// Loading models: files, parse failures, truncation, missing opset/graph, large models, and the
// well-formedness checks on the graph.
#include <gtest/gtest.h>

#include "frontend/onnx/importer.h"
#include "onnx_builder.h"
#include "temp_dir.h"

namespace ingot::frontend::testing {
namespace {

ModelBuilder relu_model() {
  ModelBuilder b(13);
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"y"}, "r");
  b.output("y");
  return b;
}

TEST(OnnxLoad, ImportsFileFromDisk) {
  TempDir dir;
  std::string path = dir.write("m.onnx", relu_model().bytes());
  auto g = import_onnx_file(path);
  ASSERT_EQ(g->nodes().size(), 1u);
  EXPECT_EQ(g->nodes()[0]->op, ops::OpKind::Relu);
  EXPECT_EQ(g->nodes()[0]->name, "r");
  EXPECT_EQ(g->nodes()[0]->opset, 13);
  EXPECT_EQ(g->name, "test_graph");
}

TEST(OnnxLoad, MissingFile) {
  EXPECT_EQ(user_error([] { import_onnx_file("/nonexistent_dir/x.onnx"); }),
            "cannot open model file '/nonexistent_dir/x.onnx': No such file or directory");
}

TEST(OnnxLoad, DirectoryIsNotAModel) {
  TempDir dir;
  EXPECT_EQ(user_error([&] { import_onnx_file(dir.path()); }),
            "cannot open model file '" + dir.path() + "': Is a directory");
}

TEST(OnnxLoad, GarbageBytes) {
  TempDir dir;
  std::string path = dir.write("x.onnx", "this is not an onnx model\n");
  EXPECT_EQ(user_error([&] { import_onnx_file(path); }),
            "'" + path + "' is not a valid ONNX model (protobuf parse failed)");
}

TEST(OnnxLoad, TruncatedInsideAField) {
  ModelBuilder b = relu_model();
  b.init(f32_tensor("w", {64}, std::vector<float>(64, 1.0f)));
  std::string bytes = b.bytes();
  // Cut inside the graph message (field 7), which contains the 256-byte raw_data.
  std::string cut = bytes.substr(0, bytes.size() - 200);
  EXPECT_EQ(user_error([&] { import_onnx_bytes(cut, "", "x.onnx"); }),
            "'x.onnx' is not a valid ONNX model (protobuf parse failed)");
}

TEST(OnnxLoad, TruncatedBeforeOpsetImport) {
  ModelBuilder b = relu_model();
  onnx::ModelProto no_opset = b.model();
  no_opset.clear_opset_import();
  // Serialized fields are ordered by number, so opset_import (8) comes after graph (7): cutting
  // the opset bytes gives a message that parses but imports no default-domain opset.
  std::string cut = no_opset.SerializeAsString();
  ASSERT_EQ(b.bytes().substr(0, cut.size()), cut);
  EXPECT_EQ(user_error([&] { import_onnx_bytes(cut, "", "x.onnx"); }),
            "'x.onnx' is not a valid ONNX model: it imports no opset of the default ONNX domain");
}

TEST(OnnxLoad, EmptyBytesHaveNoGraph) {
  EXPECT_EQ(user_error([] { import_onnx_bytes("", "", "x.onnx"); }),
            "'x.onnx' is not a valid ONNX model: it has no graph");
}

TEST(OnnxLoad, OpsetTooNewAndTooOld) {
  ModelBuilder newer = relu_model();
  newer.model().mutable_opset_import(0)->set_version(29);
  EXPECT_EQ(user_error([&] { newer.import(); }),
            "'test.onnx' uses ONNX opset 29; ingot supports opsets 1 to 28");
  ModelBuilder older = relu_model();
  older.model().mutable_opset_import(0)->set_version(0);
  EXPECT_EQ(user_error([&] { older.import(); }),
            "'test.onnx' uses ONNX opset 0; ingot supports opsets 1 to 28");
}

// Below opset 7 the converter table decides per op: Not (unchanged since opset 1) imports at
// opset 1, Relu (imported from opset 7 on) is refused naming the op.
TEST(OnnxLoad, OldOpsetsArePerOp) {
  ModelBuilder not1(1);
  not1.input("x", {3, 4}, onnx::TensorProto::BOOL);
  not1.node("Not", {"x"}, {"y"}, "n");
  not1.output("y");
  auto g = not1.import();
  EXPECT_EQ(find_node(*g, "n")->op, ops::OpKind::Not);
  ModelBuilder relu6 = relu_model();
  relu6.model().mutable_opset_import(0)->set_version(6);
  EXPECT_EQ(user_error([&] { relu6.import(); }),
            "node 'r' (Relu, opset 6): unsupported operator (ingot supports Relu at opsets 7 to "
            "28)");
}

TEST(OnnxLoad, AiOnnxDomainNameIsTheDefaultDomain) {
  ModelBuilder b = relu_model();
  b.model().mutable_opset_import(0)->set_domain("ai.onnx");
  b.model().mutable_graph()->mutable_node(0)->set_domain("ai.onnx");
  auto g = b.import();
  EXPECT_EQ(g->nodes()[0]->opset, 13);
}

TEST(OnnxLoad, ModelLargerThan64MB) {
  ModelBuilder b(13);
  b.input("x", {1});
  const size_t n = 17 * 1024 * 1024;  // 68 MiB of float32
  std::vector<float> big(n, 0.5f);
  big[n - 1] = 3.0f;
  b.init(f32_tensor("w", {int64_t(n)}, big));
  b.node("Add", {"x", "w"}, {"y"});
  b.output("y");
  auto g = b.import();
  const graph::Value* w = g->find_value("w");
  ASSERT_NE(w, nullptr);
  ASSERT_TRUE(w->is_constant());
  EXPECT_EQ(w->constant->num_elements(), int64_t(n));
  EXPECT_EQ(w->constant->get_f64(int64_t(n) - 1), 3.0);
}

TEST(OnnxLoad, NodesOutOfOrderAreSortedTopologically) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("Neg", {"t"}, {"y"}, "second");
  b.node("Relu", {"x"}, {"t"}, "first");
  b.output("y");
  auto g = b.import();
  ASSERT_EQ(g->nodes().size(), 2u);
  EXPECT_EQ(g->nodes()[0]->name, "first");
  EXPECT_EQ(g->nodes()[1]->name, "second");
  EXPECT_EQ(g->nodes()[1]->inputs[0], g->nodes()[0]->outputs[0]);
}

TEST(OnnxLoad, UndefinedNodeInput) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("Add", {"x", "nowhere"}, {"y"}, "add1");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: node 'add1' (Add) reads value 'nowhere', "
            "which is not defined");
}

TEST(OnnxLoad, ValueDefinedTwice) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("Relu", {"x"}, {"y"}, "a");
  b.node("Neg", {"x"}, {"y"}, "b");
  b.output("y");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: value 'y' is defined twice (again by node 'b' "
            "(Neg))");
}

TEST(OnnxLoad, NodeRedefiningAGraphInput) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("Relu", {"x"}, {"x"}, "a");
  b.output("x");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: value 'x' is defined twice (again by node 'a' "
            "(Relu))");
}

TEST(OnnxLoad, Cycle) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("Add", {"x", "q"}, {"p"}, "a");
  b.node("Relu", {"p"}, {"q"}, "b");
  b.output("q");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: the graph has a cycle through node 'a' (Add)");
}

TEST(OnnxLoad, UndefinedGraphOutput) {
  ModelBuilder b = relu_model();
  b.output("zzz");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: graph output 'zzz' is not defined");
}

TEST(OnnxLoad, DuplicateGraphInput) {
  ModelBuilder b = relu_model();
  b.input("x", {1, 4});
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: graph input 'x' is listed twice");
}

TEST(OnnxLoad, NodeWithoutOutputs) {
  ModelBuilder b = relu_model();
  b.node("Neg", {"x"}, {}, "n");
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: node 'n' (Neg) has no outputs");
}

TEST(OnnxLoad, OmittedOptionalOutputsAreValid) {
  // Only empty output names: still invalid.
  ModelBuilder empty = relu_model();
  empty.node("Neg", {"x"}, {"", ""}, "n");
  EXPECT_EQ(user_error([&] { empty.import(); }),
            "'test.onnx' is not a valid ONNX model: node 'n' (Neg) has no outputs");
  // LSTM with Y omitted and Y_h listed passes the validity check and imports.
  ModelBuilder b(14);
  b.input("X", {1, 1, 2});
  b.input("W", {1, 4, 2});
  b.input("R", {1, 4, 1});
  b.node("LSTM", {"X", "W", "R"}, {"", "Y_h"}, "lstm");
  b.output("Y_h");
  auto g = b.import();
  const graph::Node* n = find_node(*g, "lstm");
  EXPECT_EQ(n->op, ops::OpKind::LSTM);
  EXPECT_EQ(n->outputs.size(), 2u);
}

TEST(OnnxLoad, NoOutputs) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.node("Relu", {"x"}, {"y"});
  EXPECT_EQ(user_error([&] { b.import(); }),
            "'test.onnx' is not a valid ONNX model: the graph has no outputs");
}

}  // namespace
}  // namespace ingot::frontend::testing
