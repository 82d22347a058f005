// The C++ wrapper: RAII model/session over the fake artifact, and failures thrown as
// ingot::rt::Error with the runtime's message and status.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ingot/runtime.hpp"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;

TEST(RuntimeHpp, RunsAndReadsOutputs) {
  ingot::rt::Model model(fake_artifact("fake_affine"));
  EXPECT_EQ(model.num_inputs(), 2);
  EXPECT_STREQ(model.output_info(0).name, "y");
  EXPECT_EQ(model.find_input("bias"), 1);
  ingot::rt::Session session(model);
  std::vector<float> x{0, 0, 0, 1, 1, 1}, bias{0, 0, 0};
  session.set_input_copy(0, x.data(), 24);
  session.set_input_copy(1, bias.data(), 12);
  session.set_profiling(true);
  session.run();
  DLTensor y = session.output(0);
  const float* p = static_cast<const float*>(y.data);
  EXPECT_EQ(std::vector<float>(p, p + 6), (std::vector<float>{0.5f, 1, 1.5f, 2.5f, 3, 3.5f}));
  auto times = session.kernel_times(model);
  ASSERT_EQ(times.size(), 2u);
  EXPECT_EQ(times[0].name, "fake_scale");
  EXPECT_EQ(times[1].calls, 1);
  ingot::rt::Session moved = std::move(session);
  moved.run();
}

TEST(RuntimeHpp, ErrorsThrowWithMessage) {
  try {
    ingot::rt::Model model("/nonexistent.so");
    FAIL() << "expected an exception";
  } catch (const ingot::rt::Error& e) {
    EXPECT_EQ(e.status(), INGOT_ERR_LOAD);
    EXPECT_STREQ(e.what(), "cannot open artifact '/nonexistent.so': No such file or directory");
  }
  ingot::rt::Model model(fake_artifact("fake_affine"));
  ingot::rt::Session session(model);
  try {
    session.run();
    FAIL() << "expected an exception";
  } catch (const ingot::rt::Error& e) {
    EXPECT_STREQ(e.what(), "input 'x' was not set");
  }
  EXPECT_THROW(model.input_info(7), ingot::rt::Error);
}

}  // namespace
