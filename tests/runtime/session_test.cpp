// Sessions on the fake artifact (y = 2x + bias + [0.5, 1, 1.5], count = #(y > 0)): results,
// zero-copy vs copied inputs, strided inputs, input validation messages, errors reported by the
// model, profiling, and concurrent sessions on one model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "ingot/runtime.h"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;
using ingot::testing::make_tensor;

// Independent expectation of the fake model.
std::vector<float> expected_y(const std::vector<float>& x, const std::vector<float>& bias) {
  const float c[3] = {0.5f, 1.0f, 1.5f};
  std::vector<float> y(6);
  for (int i = 0; i < 6; ++i) y[i] = 2 * x[i] + bias[i % 3] + c[i % 3];
  return y;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ingot_model_load(fake_artifact("fake_affine").c_str(), &model_), INGOT_OK)
        << ingot_last_error();
    ASSERT_EQ(ingot_session_create(model_, &session_), INGOT_OK) << ingot_last_error();
  }
  void TearDown() override {
    ingot_session_free(session_);
    ingot_model_free(model_);
  }
  std::vector<float> output_y() {
    DLTensor view;
    EXPECT_EQ(ingot_session_output(session_, 0, &view), INGOT_OK);
    const float* p = static_cast<const float*>(view.data);
    return std::vector<float>(p, p + 6);
  }
  int64_t output_count() {
    DLTensor view;
    EXPECT_EQ(ingot_session_output(session_, 1, &view), INGOT_OK);
    return *static_cast<const int64_t*>(view.data);
  }
  IngotModel* model_ = nullptr;
  IngotSession* session_ = nullptr;
  std::vector<float> x_{1, -2, 3, -4, 5, -6};
  std::vector<float> bias_{0.25f, 0.5f, -10};
  std::vector<int64_t> x_shape_{2, 3};
  std::vector<int64_t> bias_shape_{3};
};

TEST_F(SessionTest, RunsWithDLTensorInputs) {
  DLTensor x = make_tensor(x_, x_shape_, kDLFloat);
  DLTensor b = make_tensor(bias_, bias_shape_, kDLFloat);
  ASSERT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_set_input(session_, 1, &b), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
  std::vector<float> want = expected_y(x_, bias_);
  EXPECT_EQ(output_y(), want);
  int64_t positives = 0;
  for (float v : want) positives += v > 0;
  EXPECT_EQ(output_count(), positives);
}

TEST_F(SessionTest, OutputViewDescribesTheOutput) {
  DLTensor view;
  ASSERT_EQ(ingot_session_output(session_, 1, &view), INGOT_OK);
  EXPECT_EQ(view.device.device_type, kDLCPU);
  EXPECT_EQ(view.ndim, 1);
  EXPECT_EQ(view.shape[0], 1);
  EXPECT_EQ(view.dtype.code, kDLInt);
  EXPECT_EQ(view.dtype.bits, 64);
  EXPECT_EQ(view.dtype.lanes, 1);
  EXPECT_EQ(view.strides, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(view.data) % 64, 0u);
  EXPECT_EQ(ingot_session_output(session_, 2, &view), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "output index 2 out of range [0, 2)");
}

TEST_F(SessionTest, CompactInputIsUsedInPlace) {
  DLTensor x = make_tensor(x_, x_shape_, kDLFloat);
  ASSERT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_OK);
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 12), INGOT_OK);
  x_[0] = 100;  // visible to the run only if the session did not copy x
  ASSERT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
  EXPECT_FLOAT_EQ(output_y()[0], 2 * 100 + 0.25f + 0.5f);
}

TEST_F(SessionTest, SetInputCopyCopies) {
  ASSERT_EQ(ingot_session_set_input_copy(session_, 0, x_.data(), 24), INGOT_OK);
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 12), INGOT_OK);
  std::vector<float> want = expected_y(x_, bias_);
  x_[0] = 100;  // must not affect the run
  ASSERT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
  EXPECT_EQ(output_y(), want);
}

TEST_F(SessionTest, StridedInputIsCopiedDense) {
  // x^T stored as a 3x2 row-major buffer, viewed as 2x3 through strides {1, 2}.
  std::vector<float> xt{1, -4, -2, 5, 3, -6};
  DLTensor x = make_tensor(xt, x_shape_, kDLFloat);
  std::vector<int64_t> strides{1, 2};
  x.strides = strides.data();
  DLTensor b = make_tensor(bias_, bias_shape_, kDLFloat);
  ASSERT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_OK) << ingot_last_error();
  ASSERT_EQ(ingot_session_set_input(session_, 1, &b), INGOT_OK);
  ASSERT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
  EXPECT_EQ(output_y(), expected_y(x_, bias_));
}

TEST_F(SessionTest, ByteOffsetIsHonoured) {
  std::vector<float> padded{99, 99, 0.25f, 0.5f, -10};
  DLTensor b = make_tensor(padded, bias_shape_, kDLFloat);
  b.byte_offset = 2 * sizeof(float);
  DLTensor x = make_tensor(x_, x_shape_, kDLFloat);
  ASSERT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_OK);
  ASSERT_EQ(ingot_session_set_input(session_, 1, &b), INGOT_OK);
  ASSERT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
  EXPECT_EQ(output_y(), expected_y(x_, bias_));
}

TEST_F(SessionTest, WrongShapeIsRejected) {
  std::vector<int64_t> shape{2, 2};
  DLTensor x = make_tensor(x_, shape, kDLFloat);
  EXPECT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'x': expected shape [2,3], got [2,2]");
  std::vector<int64_t> rank1{6};
  x = make_tensor(x_, rank1, kDLFloat);
  EXPECT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'x': expected shape [2,3], got [6]");
}

TEST_F(SessionTest, WrongDtypeIsRejected) {
  std::vector<int64_t> data(6);
  DLTensor x = make_tensor(data, x_shape_, kDLInt);
  EXPECT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'x': expected dtype float32, got int64");
}

TEST_F(SessionTest, NonCpuTensorIsRejected) {
  DLTensor x = make_tensor(x_, x_shape_, kDLFloat);
  x.device.device_type = kDLCUDA;
  EXPECT_EQ(ingot_session_set_input(session_, 0, &x), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'x': expected a CPU tensor, got device type 2");
}

TEST_F(SessionTest, WrongByteCountIsRejected) {
  EXPECT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 8), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'bias': expected 12 bytes, got 8");
}

TEST_F(SessionTest, BadInputIndexIsRejected) {
  EXPECT_EQ(ingot_session_set_input_copy(session_, 5, bias_.data(), 12),
            INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input index 5 out of range [0, 2)");
}

TEST_F(SessionTest, RunWithoutInputFails) {
  ASSERT_EQ(ingot_session_set_input_copy(session_, 0, x_.data(), 24), INGOT_OK);
  EXPECT_EQ(ingot_session_run(session_), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'bias' was not set");
}

TEST_F(SessionTest, FailedSetInputUnbindsTheInput) {
  ASSERT_EQ(ingot_session_set_input_copy(session_, 0, x_.data(), 24), INGOT_OK);
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 12), INGOT_OK);
  std::vector<int64_t> shape{4};
  DLTensor b = make_tensor(bias_, shape, kDLFloat);
  EXPECT_EQ(ingot_session_set_input(session_, 1, &b), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ingot_session_run(session_), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "input 'bias' was not set");
}

TEST_F(SessionTest, ModelErrorIsReported) {
  bias_[1] = NAN;
  ASSERT_EQ(ingot_session_set_input_copy(session_, 0, x_.data(), 24), INGOT_OK);
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 12), INGOT_OK);
  EXPECT_EQ(ingot_session_run(session_), INGOT_ERR_RUN);
  EXPECT_STREQ(ingot_last_error(), "model 'fake_affine' failed: bias contains NaN");
  // The error does not stick to the session: a good run afterwards succeeds.
  bias_[1] = 0.5f;
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 12), INGOT_OK);
  EXPECT_EQ(ingot_session_run(session_), INGOT_OK) << ingot_last_error();
}

TEST_F(SessionTest, ProfilingCountsKernelCalls) {
  ASSERT_EQ(ingot_session_set_input_copy(session_, 0, x_.data(), 24), INGOT_OK);
  ASSERT_EQ(ingot_session_set_input_copy(session_, 1, bias_.data(), 12), INGOT_OK);
  ASSERT_EQ(ingot_session_run(session_), INGOT_OK);  // not profiled
  ASSERT_EQ(ingot_session_set_profiling(session_, 1), INGOT_OK);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(ingot_session_run(session_), INGOT_OK);
  for (int k = 0; k < 2; ++k) {
    double seconds = -1;
    int64_t calls = -1;
    ASSERT_EQ(ingot_session_kernel_time(session_, k, &seconds, &calls), INGOT_OK);
    EXPECT_EQ(calls, 3);
    EXPECT_GE(seconds, 0.0);
  }
  EXPECT_EQ(ingot_session_kernel_time(session_, 2, nullptr, nullptr), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "kernel index 2 out of range [0, 2)");
}

TEST_F(SessionTest, ConcurrentSessionsOnOneModel) {
  constexpr int kThreads = 4;
  constexpr int kRuns = 200;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      IngotSession* s = nullptr;
      if (ingot_session_create(model_, &s) != INGOT_OK) {
        failures[t] = -1;
        return;
      }
      std::vector<float> x(6), bias{float(t), 0, 0};
      for (int r = 0; r < kRuns; ++r) {
        for (int i = 0; i < 6; ++i) x[i] = float(t * 1000 + r + i);
        ingot_session_set_input_copy(s, 0, x.data(), 24);
        ingot_session_set_input_copy(s, 1, bias.data(), 12);
        DLTensor view;
        if (ingot_session_run(s) != INGOT_OK || ingot_session_output(s, 0, &view) != INGOT_OK) {
          failures[t]++;
          continue;
        }
        std::vector<float> got(static_cast<float*>(view.data), static_cast<float*>(view.data) + 6);
        if (got != expected_y(x, bias)) failures[t]++;
      }
      ingot_session_free(s);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

TEST(SessionErrors, NullHandles) {
  IngotSession* s = nullptr;
  EXPECT_EQ(ingot_session_create(nullptr, &s), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "ingot_session_create: model is NULL");
  EXPECT_EQ(ingot_session_run(nullptr), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "ingot_session_run: session is NULL");
  ingot_session_free(nullptr);  // no-op
  ingot_model_free(nullptr);
}

TEST(DTypeHelpers, NamesAndSizes) {
  char buf[32];
  EXPECT_STREQ(ingot_dtype_name({2, 32, 1}, buf, sizeof buf), "float32");
  EXPECT_STREQ(ingot_dtype_name({0, 64, 1}, buf, sizeof buf), "int64");
  EXPECT_STREQ(ingot_dtype_name({1, 8, 1}, buf, sizeof buf), "uint8");
  EXPECT_STREQ(ingot_dtype_name({6, 8, 1}, buf, sizeof buf), "bool");
  EXPECT_STREQ(ingot_dtype_name({2, 16, 4}, buf, sizeof buf), "float16x4");
  EXPECT_EQ(ingot_dtype_bytes({2, 16, 1}), 2u);
  EXPECT_EQ(ingot_dtype_bytes({2, 32, 4}), 16u);
  EXPECT_EQ(ingot_dtype_bytes({6, 1, 1}), 1u);
}

}  // namespace
