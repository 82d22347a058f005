// The runtime's parallel_for, driven through the fake_pool artifact: every task runs exactly
// once at any thread count, each thread runs a contiguous range of the tasks, a failing task's
// status is returned, nested loops run serially on the outer task's thread, and the thread count
// is settable.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "ingot/runtime.h"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;

struct PoolResult {
  ingot_status status;
  int64_t hits, bad, inner_hits, jumps;
};

class ThreadPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ingot_model_load(fake_artifact("fake_pool").c_str(), &model_), INGOT_OK)
        << ingot_last_error();
    ASSERT_EQ(ingot_session_create(model_, &session_), INGOT_OK);
  }
  void TearDown() override {
    ingot_session_free(session_);
    ingot_model_free(model_);
    ingot_set_num_threads(0);
  }
  PoolResult run(int64_t num_tasks, int64_t fail_task, int64_t nested, int64_t spin_ns = 0) {
    ingot_session_set_input_copy(session_, 0, &num_tasks, 8);
    ingot_session_set_input_copy(session_, 1, &fail_task, 8);
    ingot_session_set_input_copy(session_, 2, &nested, 8);
    ingot_session_set_input_copy(session_, 3, &spin_ns, 8);
    PoolResult r{ingot_session_run(session_), 0, 0, 0, 0};
    int64_t* out[4] = {&r.hits, &r.bad, &r.inner_hits, &r.jumps};
    for (int i = 0; i < 4; ++i) {
      DLTensor view;
      ingot_session_output(session_, i, &view);
      *out[i] = *static_cast<int64_t*>(view.data);
    }
    return r;
  }
  IngotModel* model_ = nullptr;
  IngotSession* session_ = nullptr;
};

TEST_F(ThreadPoolTest, EveryTaskRunsOnceAtEveryThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    ASSERT_EQ(ingot_set_num_threads(threads), INGOT_OK);
    EXPECT_EQ(ingot_get_num_threads(), threads);
    for (int64_t n : {0, 1, 2, 7, 1000, 4096}) {
      for (int rep = 0; rep < 5; ++rep) {
        PoolResult r = run(n, -1, 0);
        ASSERT_EQ(r.status, INGOT_OK) << ingot_last_error();
        EXPECT_EQ(r.hits, n) << threads << " threads, " << n << " tasks";
        EXPECT_EQ(r.bad, 0);
      }
    }
  }
}

// Neighbouring tasks share data (a conv's weight block over several output rows), so each thread
// runs one contiguous range of the tasks and only then takes what is left of the others'. A
// thread's next task is then its previous one + 1, except where it moves to another range and
// where two threads share the rest of one range: at most one range's tasks plus one move per
// thread, here 128 + 2 of 256. One shared task counter hands out tasks alternately (~256).
TEST_F(ThreadPoolTest, EachThreadRunsAContiguousRange) {
  ASSERT_EQ(ingot_set_num_threads(2), INGOT_OK);
  for (int rep = 0; rep < 5; ++rep) {
    PoolResult r = run(256, -1, 0, 20000);
    ASSERT_EQ(r.status, INGOT_OK) << ingot_last_error();
    ASSERT_EQ(r.hits, 256);
    EXPECT_LE(r.jumps, 128 + 2);
    EXPECT_GE(r.jumps, 0);
  }
}

TEST_F(ThreadPoolTest, FailingTaskStatusIsReturned) {
  ASSERT_EQ(ingot_set_num_threads(4), INGOT_OK);
  PoolResult r = run(100, 37, 0);
  EXPECT_EQ(r.status, INGOT_ERR_RUN);
  EXPECT_STREQ(ingot_last_error(), "model 'fake_pool' failed with status 7");
  EXPECT_LE(r.hits, 100);
  EXPECT_GE(r.hits, 1);
  EXPECT_EQ(r.bad, 0);
}

TEST_F(ThreadPoolTest, NestedLoopsRunSeriallyOnTheOuterThread) {
  ASSERT_EQ(ingot_set_num_threads(4), INGOT_OK);
  PoolResult r = run(64, -1, 1);
  ASSERT_EQ(r.status, INGOT_OK) << ingot_last_error();
  EXPECT_EQ(r.hits, 64);
  EXPECT_EQ(r.inner_hits, 64 * 4);
  EXPECT_EQ(r.bad, 0);
}

TEST(ThreadPoolConfig, DefaultIsPositiveAndEnvOverrides) {
  ASSERT_EQ(ingot_set_num_threads(0), INGOT_OK);
  int physical = ingot_get_num_threads();
  EXPECT_GE(physical, 1);
  EXPECT_LE(physical, static_cast<int>(std::thread::hardware_concurrency()));
  setenv("INGOT_NUM_THREADS", "3", 1);
  ASSERT_EQ(ingot_set_num_threads(0), INGOT_OK);
  EXPECT_EQ(ingot_get_num_threads(), 3);
  unsetenv("INGOT_NUM_THREADS");
  ASSERT_EQ(ingot_set_num_threads(0), INGOT_OK);
  EXPECT_EQ(ingot_get_num_threads(), physical);
}

}  // namespace
