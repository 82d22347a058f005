// CompileOptions::progress: called through every step in order, with codegen counting the
// kernels one by one up to their number, never going back (kernels compile on several threads).
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include "driver/compile_stages.h"
#include "driver/compiled_model.h"
#include "driver/onnx_model_builder.h"

namespace ingot::testing {
namespace {

// A chain of run-time ops that stay separate kernels (-O0: no fusion), so codegen has several.
std::string write_chain(const std::filesystem::path& dir, int length) {
  OnnxModelBuilder b;
  b.input("x", {4, 8});
  b.output("y" + std::to_string(length));
  b.initializer("w", {8, 8}, std::vector<float>(64, 0.5f));
  std::string prev = "x";
  for (int i = 1; i <= length; ++i) {
    std::string out = "y" + std::to_string(i);
    if (i % 2)
      b.node("MatMul", {prev, "w"}, {out}, "mm" + std::to_string(i));
    else
      b.node("Relu", {prev}, {out}, "relu" + std::to_string(i));
    prev = out;
  }
  std::string path = (dir / "chain.onnx").string();
  b.save(path);
  return path;
}

struct Call {
  driver::CompileProgress p;
  std::thread::id thread;
};

std::vector<Call> compile_recording(int threads, driver::CompileReport* report) {
  auto dir = temp_dir("progress_" + std::to_string(threads));
  std::vector<Call> calls;
  std::mutex mu;
  int in_callback = 0;  // the driver never calls it from two threads at once
  driver::CompileOptions opts;
  opts.opt_level = 0;
  opts.codegen_threads = threads;
  opts.progress = [&](const driver::CompileProgress& p) {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(++in_callback, 1);
    calls.push_back({p, std::this_thread::get_id()});
    --in_callback;
  };
  std::ostringstream dump;
  *report = driver::compile_model(write_chain(dir, 7), (dir / "m.so").string(), opts, dump);
  return calls;
}

void check_monotonic(const std::vector<Call>& calls, int kernels) {
  const std::vector<std::string>& steps = driver::compile_steps();
  ASSERT_FALSE(calls.empty());
  std::vector<int> seen_steps;
  int codegen_last = -1;
  for (size_t i = 0; i < calls.size(); ++i) {
    const driver::CompileProgress& p = calls[i].p;
    EXPECT_EQ(p.steps, int(steps.size()));
    ASSERT_GE(p.step, 1);
    ASSERT_LE(p.step, p.steps);
    EXPECT_EQ(p.stage, steps[size_t(p.step - 1)]);
    if (i > 0) {
      const driver::CompileProgress& q = calls[i - 1].p;
      // (step, done) strictly increases.
      EXPECT_TRUE(p.step > q.step || (p.step == q.step && p.done > q.done))
          << "call " << i << ": [" << p.step << "] " << p.done << " after [" << q.step << "] "
          << q.done;
    }
    if (seen_steps.empty() || seen_steps.back() != p.step) seen_steps.push_back(p.step);
    if (p.stage == "codegen") {
      EXPECT_EQ(p.total, kernels);
      EXPECT_EQ(p.unit, "kernels");
      EXPECT_LE(p.done, p.total);
      codegen_last = p.done;
    } else {
      EXPECT_EQ(p.total, 0);
      EXPECT_EQ(p.done, 0);
    }
  }
  EXPECT_EQ(seen_steps, (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(codegen_last, kernels);
  // Every kernel is reported once: 0, 1, ..., kernels.
  int codegen_calls = 0;
  for (const Call& c : calls) codegen_calls += c.p.stage == "codegen";
  EXPECT_EQ(codegen_calls, kernels + 1);
}

TEST(CompileProgress, EveryStepInOrderAndEveryKernelCounted) {
  driver::CompileReport r;
  std::vector<Call> calls = compile_recording(1, &r);
  EXPECT_EQ(r.num_kernels, 7);
  EXPECT_EQ(r.codegen_threads, 1);
  check_monotonic(calls, r.num_kernels);
}

TEST(CompileProgress, CountsStayMonotonicWithKernelsOnSeveralThreads) {
  driver::CompileReport r;
  std::vector<Call> calls = compile_recording(3, &r);
  EXPECT_EQ(r.codegen_threads, 3);
  check_monotonic(calls, r.num_kernels);
}

// The pipeline is one list of named stages; the ones that start a progress step start steps
// 1 to 4 in order (codegen reports 5 and 6 itself), each step a stage of the same name.
TEST(CompileStages, OneListInOrderStartingTheProgressSteps) {
  std::vector<std::string> names;
  std::vector<int> steps;
  for (const driver::CompileStage& s : driver::compile_stages()) {
    names.push_back(s.name);
    if (s.step > 0) {
      steps.push_back(s.step);
      EXPECT_EQ(driver::compile_steps()[size_t(s.step - 1)], s.name);
    }
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"import", "infer_types", "check_shapes", "graph_passes",
                                      "quantize_weights", "verify_graph", "lower", "schedule",
                                      "loop_passes", "codegen", "report", "accuracy"}));
  EXPECT_EQ(steps, (std::vector<int>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace ingot::testing
