// Bad input to the compiler: each gives one clear UserError naming the culprit and writes no file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"
#include "support/error.h"

namespace ingot::testing {
namespace {

std::string compile_error(const std::string& model, const std::string& out,
                          const driver::CompileOptions& opts = {}) {
  std::ostringstream dump;
  try {
    driver::compile_model(model, out, opts, dump);
  } catch (const UserError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(CompileErrors, UnsupportedOpNamesNodeOpAndOpset) {
  OnnxModelBuilder mb(13);
  mb.input("x", {4});
  mb.node("Relu", {"x"}, {"r"}, "relu");
  mb.node("Multinomial", {"r"}, {"y"}, "the_sampler");
  mb.output("y");
  auto dir = temp_dir("err_unsupported");
  mb.save(dir / "m.onnx");
  std::string msg = compile_error(dir / "m.onnx", dir / "m.so");
  EXPECT_NE(msg.find("the_sampler"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Multinomial"), std::string::npos) << msg;
  EXPECT_NE(msg.find("13"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.so"));
}

TEST(CompileErrors, MissingAndTruncatedModelFiles) {
  auto dir = temp_dir("err_files");
  std::string msg = compile_error(dir / "nope.onnx", dir / "m.so");
  EXPECT_NE(msg.find("nope.onnx"), std::string::npos) << msg;

  OnnxModelBuilder mb;
  mb.input("x", {64});
  mb.initializer("w", {64}, std::vector<float>(64, 1.f));
  mb.node("Add", {"x", "w"}, {"y"}, "add");
  mb.output("y");
  mb.save(dir / "full.onnx");
  std::ifstream in(dir / "full.onnx", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::ofstream(dir / "cut.onnx", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  msg = compile_error(dir / "cut.onnx", dir / "m.so");
  EXPECT_NE(msg.find("cut.onnx"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.so"));
}

TEST(CompileErrors, UnboundSymbolicDimensionAndUnknownShapeInput) {
  OnnxModelBuilder mb;
  mb.input("x", {-1, 4}, onnx::TensorProto::FLOAT, {"N", ""});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  mb.output("y");
  auto dir = temp_dir("err_symbolic");
  mb.save(dir / "m.onnx");
  std::string msg = compile_error(dir / "m.onnx", dir / "m.so");
  EXPECT_NE(msg.find("'N'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--input-shapes"), std::string::npos) << msg;

  driver::CompileOptions opts;
  opts.input_shapes = driver::parse_input_shapes("y:[1,4]");
  msg = compile_error(dir / "m.onnx", dir / "m.so", opts);
  EXPECT_NE(msg.find("'y'"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.so"));
}

TEST(CompileErrors, BadOptions) {
  auto dir = temp_dir("err_options");
  OnnxModelBuilder mb;
  mb.input("x", {4});
  mb.node("Relu", {"x"}, {"y"}, "relu");
  mb.output("y");
  mb.save(dir / "m.onnx");
  driver::CompileOptions opts;
  opts.dump = {"asm"};
  EXPECT_NE(compile_error(dir / "m.onnx", dir / "m.so", opts).find("--dump: unknown value 'asm'"),
            std::string::npos);
  opts = {};
  opts.target = "llvm -mfoo=1";
  EXPECT_NE(compile_error(dir / "m.onnx", dir / "m.so", opts).find("-mfoo"), std::string::npos);
  EXPECT_THROW(driver::parse_input_shapes("x[1,2]"), UserError);
  EXPECT_THROW(driver::parse_input_shapes("x:[1,a]"), UserError);
  EXPECT_EQ(driver::parse_input_shapes("a:[1,3,224,224] b:[2]").at("a"),
            (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(driver::parse_input_shapes("a:[1,2],b:[]").at("b"), (std::vector<int64_t>{}));
  EXPECT_FALSE(std::filesystem::exists(dir / "m.so"));
}

}  // namespace
}  // namespace ingot::testing
