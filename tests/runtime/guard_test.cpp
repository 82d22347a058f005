// The run-time guard of specialised inputs, on the fake artifact whose input `bias` is specialised
// to [0.25, 0.5, -10]: the right value runs, any other value (bound zero-copy, copied, or changed
// in place after binding) fails the run before the model runs, with one line naming the input
// and both values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ingot/runtime.h"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;
using ingot::testing::make_tensor;

class GuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ingot_model_load(fake_artifact("fake_affine_specialized").c_str(), &model_), INGOT_OK)
        << ingot_last_error();
    ASSERT_EQ(ingot_session_create(model_, &session_), INGOT_OK) << ingot_last_error();
    DLTensor x = make_tensor(x_, x_shape_, kDLFloat);
    ASSERT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_OK) << ingot_last_error();
  }
  void TearDown() override {
    ingot_session_free(session_);
    ingot_model_free(model_);
  }
  ingot_status run_with_bias(std::vector<float>& bias) {
    DLTensor b = make_tensor(bias, bias_shape_, kDLFloat);
    EXPECT_EQ(ingot_session_set_input(session_, 1, &b), INGOT_OK) << ingot_last_error();
    return ingot_session_run(session_);
  }
  float y0() {
    DLTensor view;
    EXPECT_EQ(ingot_session_output(session_, 0, &view), INGOT_OK);
    return static_cast<const float*>(view.data)[0];
  }
  IngotModel* model_ = nullptr;
  IngotSession* session_ = nullptr;
  std::vector<float> x_{1, -2, 3, -4, 5, -6};
  std::vector<int64_t> x_shape_{2, 3};
  std::vector<int64_t> bias_shape_{3};
};

TEST_F(GuardTest, InfoExposesTheValue) {
  EXPECT_EQ(ingot_model_input_info(model_, 0)->specialized_value, nullptr);
  const auto* v = static_cast<const float*>(ingot_model_input_info(model_, 1)->specialized_value);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(std::vector<float>(v, v + 3), (std::vector<float>{0.25f, 0.5f, -10.0f}));
}

TEST_F(GuardTest, TheSpecialisedValueRuns) {
  std::vector<float> bias{0.25f, 0.5f, -10.0f};
  ASSERT_EQ(run_with_bias(bias), INGOT_OK) << ingot_last_error();
  EXPECT_EQ(y0(), 2 * 1 + 0.25f + 0.5f);
}

TEST_F(GuardTest, AnotherValueFailsNamingBoth) {
  std::vector<float> bias{0.25f, 0.5f, 1.0f};
  EXPECT_EQ(run_with_bias(bias), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(),
               "input 'bias' was specialised at compile time to [0.25, 0.5, -10]; got "
               "[0.25, 0.5, 1]; recompile with its new value");
}

TEST_F(GuardTest, CloseValuesPrintDistinctly) {
  // %g would print both as -10; the message uses enough digits to tell them apart.
  std::vector<float> bias{0.25f, 0.5f, std::nextafter(-10.0f, 0.0f)};
  EXPECT_EQ(run_with_bias(bias), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(),
               "input 'bias' was specialised at compile time to [0.25, 0.5, -10]; got "
               "[0.25, 0.5, -9.99999905]; recompile with its new value");
}

TEST_F(GuardTest, ZeroCopyInputChangedAfterBindingIsCaught) {
  std::vector<float> bias{0.25f, 0.5f, -10.0f};
  ASSERT_EQ(run_with_bias(bias), INGOT_OK) << ingot_last_error();
  float before = y0();
  bias[0] = 7.0f;  // the session reads `bias` in place
  EXPECT_EQ(ingot_session_run(session_), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ingot_last_error()).find("got [7, 0.5, -10]"), std::string::npos)
      << ingot_last_error();
  EXPECT_EQ(y0(), before);  // the model did not run
  bias[0] = 0.25f;
  EXPECT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
}

TEST_F(GuardTest, CopiedInputIsCheckedToo) {
  std::vector<float> bias{0.0f, 0.5f, -10.0f};
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias.data(), 12), INGOT_OK);
  EXPECT_EQ(ingot_session_run(session_), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(),
               "input 'bias' was specialised at compile time to [0.25, 0.5, -10]; got "
               "[0, 0.5, -10]; recompile with its new value");
}

}  // namespace
