// Sessions and threads: a session used from a second thread while a call is inside it is
// refused and left intact; sessions of one model run at once; 8 sessions shared by 2 threads
// each give bit-identical outputs over many runs (the TSan preset runs these); a session's
// thread limit bounds the threads its parallel loops use.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ingot/runtime.h"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;

constexpr int kRows = 64, kCols = 96;

std::vector<float> make_input(int variant) {
  std::vector<float> x(kRows * kCols);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] =
        static_cast<float>((static_cast<int>(i) * (variant + 3) + variant * 7) % 17) * 0.25f - 2.0f;
  return x;
}

// The closed form of fake_stress: y[r] = r + sum_c x[r][c] * w[c], in double.
std::vector<double> closed_form(const std::vector<float>& x) {
  std::vector<double> y(kRows);
  for (int r = 0; r < kRows; ++r) {
    double acc = r;
    for (int c = 0; c < kCols; ++c)
      acc += double(x[r * kCols + c]) * (((c * 37) % 11) * 0.125 - 0.5);
    y[r] = acc;
  }
  return y;
}

std::vector<float> run_once(IngotSession* s, const std::vector<float>& x) {
  EXPECT_EQ(ingot_session_set_input_copy(s, 0, x.data(), x.size() * 4), INGOT_OK)
      << ingot_last_error();
  EXPECT_EQ(ingot_session_run(s), INGOT_OK) << ingot_last_error();
  DLTensor view;
  EXPECT_EQ(ingot_session_output(s, 0, &view), INGOT_OK);
  const float* y = static_cast<const float*>(view.data);
  return std::vector<float>(y, y + kRows);
}

class GatedModel {
 public:
  GatedModel() {
    path_ = fake_artifact("fake_stress_gate");
    EXPECT_EQ(ingot_model_load(path_.c_str(), &model_), INGOT_OK) << ingot_last_error();
    // The runtime's handle is private; the same file opened again is the same loaded object.
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(handle_, nullptr);
    entered_ = static_cast<std::atomic<int>*>(dlsym(handle_, "fake_gate_entered"));
    open_ = static_cast<std::atomic<int>*>(dlsym(handle_, "fake_gate_open"));
    EXPECT_TRUE(entered_ && open_);
  }
  ~GatedModel() {
    dlclose(handle_);
    ingot_model_free(model_);
  }
  IngotModel* model() { return model_; }
  void wait_entered() {
    while (entered_->load() == 0) std::this_thread::yield();
  }
  void open() { open_->store(1); }

 private:
  std::string path_;
  IngotModel* model_ = nullptr;
  void* handle_ = nullptr;
  std::atomic<int>* entered_ = nullptr;
  std::atomic<int>* open_ = nullptr;
};

TEST(SessionConcurrency, ASessionInUseIsRefusedAndLeftIntact) {
  GatedModel gated;
  IngotSession *s = nullptr, *other = nullptr;
  ASSERT_EQ(ingot_session_create(gated.model(), &s), INGOT_OK);
  ASSERT_EQ(ingot_session_create(gated.model(), &other), INGOT_OK);
  std::vector<float> x = make_input(1), x2 = make_input(2);
  ASSERT_EQ(ingot_session_set_input_copy(s, 0, x.data(), x.size() * 4), INGOT_OK);
  ingot_status first = INGOT_ERR_RUN;
  std::thread runner([&] { first = ingot_session_run(s); });
  gated.wait_entered();
  // Every call on the held session is refused, naming the reason.
  const std::string busy = "the session is in use by another thread";
  EXPECT_EQ(ingot_session_run(s), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ingot_last_error()).find(busy), std::string::npos) << ingot_last_error();
  EXPECT_EQ(ingot_session_set_input_copy(s, 0, x2.data(), x2.size() * 4),
            INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ingot_last_error()).find("ingot_session_set_input_copy: " + busy),
            std::string::npos);
  DLTensor view;
  EXPECT_EQ(ingot_session_output(s, 0, &view), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ingot_session_set_profiling(s, 1), INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ingot_session_set_num_threads(s, 1), INGOT_ERR_INVALID_ARGUMENT);
  // Another session of the same model is not held up by it.
  EXPECT_EQ(ingot_session_set_input_copy(other, 0, x2.data(), x2.size() * 4), INGOT_OK);
  gated.open();
  runner.join();
  ASSERT_EQ(first, INGOT_OK) << ingot_last_error();
  // The refused set_input changed nothing: the run used x, and the session works again.
  ASSERT_EQ(ingot_session_output(s, 0, &view), INGOT_OK);
  std::vector<double> want = closed_form(x);
  for (int r = 0; r < kRows; ++r)
    EXPECT_NEAR(static_cast<const float*>(view.data)[r], want[r], 1e-3) << r;
  std::vector<float> again = run_once(s, x2), other_y = run_once(other, x2);
  EXPECT_EQ(std::memcmp(again.data(), other_y.data(), kRows * 4), 0);
  ingot_session_free(other);
  ingot_session_free(s);
}

// 8 sessions of one model, each shared by 2 threads that take turns (a mutex per session, as a
// server's session pool does), 4 inputs in rotation: every output is bit-identical to the
// single-threaded reference of its input, and close to the closed form.
TEST(SessionConcurrency, EightSessionsTwoThreadsEachBitIdentical) {
  ASSERT_EQ(ingot_set_num_threads(4), INGOT_OK);
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_stress").c_str(), &model), INGOT_OK)
      << ingot_last_error();
  constexpr int kSessions = 8, kThreadsPerSession = 2, kRuns = 200, kInputs = 4;
  std::vector<std::vector<float>> inputs, reference;
  {
    IngotSession* ref = nullptr;
    ASSERT_EQ(ingot_session_create(model, &ref), INGOT_OK);
    ASSERT_EQ(ingot_session_set_num_threads(ref, 1), INGOT_OK);
    for (int v = 0; v < kInputs; ++v) {
      inputs.push_back(make_input(v));
      reference.push_back(run_once(ref, inputs.back()));
      std::vector<double> want = closed_form(inputs.back());
      for (int r = 0; r < kRows; ++r) ASSERT_NEAR(reference.back()[r], want[r], 1e-3);
    }
    ingot_session_free(ref);
  }
  std::vector<IngotSession*> sessions(kSessions);
  std::vector<std::mutex> locks(kSessions);
  for (auto& s : sessions) ASSERT_EQ(ingot_session_create(model, &s), INGOT_OK);
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kSessions * kThreadsPerSession; ++t) {
    threads.emplace_back([&, t] {
      int k = t % kSessions;
      for (int i = 0; i < kRuns; ++i) {
        int v = (t + i) % kInputs;
        std::lock_guard<std::mutex> hold(locks[k]);
        IngotSession* s = sessions[k];
        if (ingot_session_set_input_copy(s, 0, inputs[v].data(), inputs[v].size() * 4) !=
                INGOT_OK ||
            ingot_session_run(s) != INGOT_OK) {
          failures++;
          continue;
        }
        DLTensor view;
        if (ingot_session_output(s, 0, &view) != INGOT_OK) {
          failures++;
          continue;
        }
        if (std::memcmp(view.data, reference[v].data(), kRows * 4) != 0) mismatches++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  for (auto* s : sessions) ingot_session_free(s);
  ingot_model_free(model);
  ingot_set_num_threads(0);
}

// Without the mutex, two threads hammering one session: every call either succeeds or is
// refused as busy; no other failure, and every successful run's output is one of the references.
TEST(SessionConcurrency, UnsynchronisedUseIsRefusedNotCorrupted) {
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_stress").c_str(), &model), INGOT_OK);
  IngotSession* s = nullptr;
  ASSERT_EQ(ingot_session_create(model, &s), INGOT_OK);
  std::vector<float> x = make_input(5);
  std::vector<float> want = run_once(s, x);
  std::atomic<int> refused{0}, other{0}, ok{0};
  auto hammer = [&] {
    for (int i = 0; i < 300; ++i) {
      ingot_status st = ingot_session_run(s);
      if (st == INGOT_OK) {
        ok++;
      } else if (st == INGOT_ERR_INVALID_ARGUMENT &&
                 std::strstr(ingot_last_error(), "in use by another thread") != nullptr) {
        refused++;
      } else {
        other++;
      }
    }
  };
  std::thread a(hammer), b(hammer);
  a.join();
  b.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(ok.load() + refused.load(), 600);
  EXPECT_GT(ok.load(), 0);
  std::vector<float> after = run_once(s, x);
  EXPECT_EQ(std::memcmp(after.data(), want.data(), kRows * 4), 0);
  ingot_session_free(s);
  ingot_model_free(model);
}

// fake_pool reports how many threads ran its tasks.
int64_t threads_used(IngotSession* s, int64_t tasks, int64_t spin_ns) {
  int64_t zero = 0, none = -1;
  ingot_session_set_input_copy(s, 0, &tasks, 8);
  ingot_session_set_input_copy(s, 1, &none, 8);
  ingot_session_set_input_copy(s, 2, &zero, 8);
  ingot_session_set_input_copy(s, 3, &spin_ns, 8);
  EXPECT_EQ(ingot_session_run(s), INGOT_OK) << ingot_last_error();
  DLTensor view;
  EXPECT_EQ(ingot_session_output(s, 4, &view), INGOT_OK);
  return *static_cast<const int64_t*>(view.data);
}

TEST(SessionConcurrency, SessionThreadLimitBoundsItsParallelLoops) {
  ASSERT_EQ(ingot_set_num_threads(4), INGOT_OK);
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load(fake_artifact("fake_pool").c_str(), &model), INGOT_OK);
  IngotSession* s = nullptr;
  ASSERT_EQ(ingot_session_create(model, &s), INGOT_OK);
  ASSERT_EQ(ingot_session_set_num_threads(s, 1), INGOT_OK);
  EXPECT_EQ(threads_used(s, 64, 100000), 1);
  ASSERT_EQ(ingot_session_set_num_threads(s, 2), INGOT_OK);
  for (int rep = 0; rep < 3; ++rep) EXPECT_LE(threads_used(s, 64, 100000), 2);
  // Back to the whole pool: the run succeeds (threads_used checks it) within the pool's 4.
  ASSERT_EQ(ingot_session_set_num_threads(s, 0), INGOT_OK);
  EXPECT_LE(threads_used(s, 64, 100000), 4);
  ingot_session_free(s);
  ingot_model_free(model);
  ingot_set_num_threads(0);
}

}  // namespace
