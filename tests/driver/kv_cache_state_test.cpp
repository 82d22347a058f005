// --kv-cache (ABI 9 states): a model whose input `past` [1, past, 4] grows into the output
// present = Concat(past, 2 * x) compiles to an artifact whose session keeps the cache. Checked
// against closed forms (y = the sum of present over its rows): the cache grows over runs, is
// appended in place, loads and rolls back through the API, refuses a run past its capacity and
// keeps its length then; models without a cache pair, or with the length in another input, are
// refused at compile time with one line.
#include <gtest/gtest.h>

#include <ingot/runtime.hpp>

#include <numeric>

#include "driver/compile.h"
#include "driver/compiled_model.h"
#include "driver/dim_bounds.h"
#include "driver/onnx_model_builder.h"
#include "support/error.h"

namespace ingot::testing {
namespace {

// x [seq, 4] -> new = Unsqueeze(2 * x) [1, seq, 4]; present = Concat(past, new, axis 1);
// y = ReduceSum(present, axis 1) [1, 4]. `mask_with_past` adds an input m [past] (refused).
std::string cache_model(const std::string& name, bool mask_with_past = false) {
  OnnxModelBuilder b(13);
  b.input("x", {0, 4}, onnx::TensorProto::FLOAT, {"seq", ""});
  b.input("past", {1, 0, 4}, onnx::TensorProto::FLOAT, {"", "past", ""});
  if (mask_with_past) b.input("m", {0}, onnx::TensorProto::FLOAT, {"past"});
  b.initializer("two", {}, {2.0f});
  b.initializer_i64("zero", {1}, {0});
  b.initializer_i64("one", {1}, {1});
  b.node("Mul", {"x", "two"}, {"x2"});
  b.node("Unsqueeze", {"x2", "zero"}, {"added"});
  OnnxModelBuilder::attr_int(b.node("Concat", {"past", "added"}, {"present"}), "axis", 1);
  OnnxModelBuilder::attr_int(b.node("ReduceSum", {"present", "one"}, {"y"}), "keepdims", 0);
  b.output("y");
  b.output("present");
  std::string path = (temp_dir("kv_cache") / (name + ".onnx")).string();
  b.save(path);
  return path;
}

driver::CompileOptions cache_options(int64_t capacity) {
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..8 past:0..15");
  o.kv_cache_capacity = capacity;
  return o;
}

class KvCacheState : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (temp_dir("kv_cache") / "cache.so").string();
    driver::compile_model(cache_model("cache"), path_, cache_options(16), dump_);
  }
  // Runs x (seq rows of 4) and returns y.
  static std::vector<float> step(rt::Session& s, std::vector<float> x) {
    std::vector<int64_t> shape{int64_t(x.size() / 4), 4};
    s.set_input(0, f32_tensor(x, shape));
    s.run();
    DLTensor y = s.output(0);
    const float* p = static_cast<const float*>(y.data);
    return {p, p + 4};
  }
  std::string path_;
  std::ostringstream dump_;
};

TEST_F(KvCacheState, TheCacheIsAStateNotAnInputOrOutput) {
  rt::Model model(path_);
  ASSERT_EQ(model.num_inputs(), 1);
  EXPECT_STREQ(model.input_info(0).name, "x");
  ASSERT_EQ(model.num_outputs(), 1);
  EXPECT_STREQ(model.output_info(0).name, "y");
  ASSERT_EQ(model.num_states(), 1);
  const IngotStateInfo& st = model.state_info(0);
  EXPECT_STREQ(st.info.name, "past");
  EXPECT_EQ(st.axis, 1);
  ASSERT_EQ(st.info.ndim, 3);
  EXPECT_EQ(st.info.shape[0], 1);
  EXPECT_EQ(st.info.shape[1], 16);
  EXPECT_EQ(st.info.shape[2], 4);
  EXPECT_STREQ(model.artifact().symbols[st.length_symbol].name, "past");
  EXPECT_STREQ(model.artifact().symbols[st.step_symbol].name, "seq");
}

TEST_F(KvCacheState, RunsAppendAndReadTheWholeCache) {
  rt::Model model(path_);
  rt::Session s(model);
  EXPECT_EQ(s.state_length(), 0);
  std::vector<float> want(4, 0.0f);
  std::vector<std::vector<float>> rows;
  int64_t length = 0;
  for (int seq : {3, 1, 1, 5, 2}) {
    std::vector<float> x(size_t(seq) * 4);
    for (size_t n = 0; n < x.size(); ++n) x[n] = float(length * 4 + int64_t(n)) * 0.25f - 1.0f;
    for (int r = 0; r < seq; ++r) {
      rows.emplace_back(x.begin() + r * 4, x.begin() + r * 4 + 4);
      for (int c = 0; c < 4; ++c) want[size_t(c)] += 2.0f * x[size_t(r * 4 + c)];
    }
    std::vector<float> y = step(s, x);
    length += seq;
    ASSERT_EQ(s.state_length(), length);
    for (int c = 0; c < 4; ++c)
      EXPECT_FLOAT_EQ(y[size_t(c)], want[size_t(c)]) << "length " << length;
  }
  // The state's view: the appended rows, 2 * x each, at the capacity's strides.
  DLTensor v = s.state(0);
  ASSERT_EQ(v.ndim, 3);
  EXPECT_EQ(v.shape[1], length);
  EXPECT_EQ(v.strides[1], 4);
  EXPECT_EQ(v.strides[0], 64);
  const float* p = static_cast<const float*>(v.data);
  for (int64_t r = 0; r < length; ++r)
    for (int c = 0; c < 4; ++c) ASSERT_FLOAT_EQ(p[r * 4 + c], 2.0f * rows[size_t(r)][size_t(c)]);
}

TEST_F(KvCacheState, LoadsRollsBackAndRefusesARunPastItsCapacity) {
  rt::Model model(path_);
  rt::Session s(model);
  // Loaded entries are what the run reads as `past`.
  std::vector<float> past(4 * 4);
  std::iota(past.begin(), past.end(), 1.0f);
  std::vector<int64_t> shape{1, 4, 4};
  s.set_state(0, f32_tensor(past, shape));
  EXPECT_EQ(s.state_length(), 4);
  std::vector<float> y = step(s, {1, 1, 1, 1});
  EXPECT_FLOAT_EQ(y[0], 1 + 5 + 9 + 13 + 2.0f);
  EXPECT_FLOAT_EQ(y[3], 4 + 8 + 12 + 16 + 2.0f);
  // Rolled back to 2: the entries from there are overwritten by the next run.
  s.set_state_length(2);
  y = step(s, {0, 0, 0, 10});
  EXPECT_FLOAT_EQ(y[3], 4 + 8 + 20.0f);
  EXPECT_EQ(s.state_length(), 3);
  // 15 + 2 > 16: refused with one line, and the length stays.
  s.set_state_length(15);
  try {
    step(s, std::vector<float>(8, 1.0f));
    FAIL() << "a run past the capacity ran";
  } catch (const rt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("state 'past': 15 entries plus 2 new ones exceed its "
                                         "capacity 16"),
              std::string::npos)
        << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_EQ(s.state_length(), 15);
  step(s, std::vector<float>(4, 1.0f));  // one more fits
  EXPECT_EQ(s.state_length(), 16);
  // 16 is past the symbol's bound 0..15: the next run is refused too.
  EXPECT_THROW(step(s, std::vector<float>(4, 1.0f)), rt::Error);
  EXPECT_THROW(s.set_state_length(17), rt::Error);
  EXPECT_THROW(s.set_state_length(-1), rt::Error);
  std::vector<int64_t> wide{1, 4, 5};
  std::vector<float> bad(20);
  try {
    s.set_state(0, f32_tensor(bad, wide));
    FAIL() << "a state of the wrong shape was set";
  } catch (const rt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("state 'past': expected shape [1,16,4]"),
              std::string::npos)
        << e.what();
  }
}

TEST(KvCacheStateCompile, ModelsWithoutACachePairOrWithTheLengthElsewhereAreRefused) {
  std::ostringstream dump;
  std::string dir = temp_dir("kv_cache").string();
  try {
    driver::compile_model(cache_model("masked", true), dir + "/masked.so", cache_options(16), dump);
    FAIL() << "compiled";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--kv-cache: input 'm' has the cache length 'past'"),
              std::string::npos)
        << e.what();
  }
  // A model without a past input: e2e's MatMul-free graph x -> 2x.
  OnnxModelBuilder b(13);
  b.input("x", {0, 4}, onnx::TensorProto::FLOAT, {"seq", ""});
  b.initializer("two", {}, {2.0f});
  b.node("Mul", {"x", "two"}, {"y"});
  b.output("y");
  b.save(dir + "/plain.onnx");
  driver::CompileOptions o;
  o.dim_bounds = driver::parse_dim_bounds("seq:1..8");
  o.kv_cache_capacity = 8;
  try {
    driver::compile_model(dir + "/plain.onnx", dir + "/plain.so", o, dump);
    FAIL() << "compiled";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--kv-cache: the model has no input 'past'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ingot::testing
