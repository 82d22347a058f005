// `ingot run` on the fake artifact (y = 2x + bias + [0.5, 1, 1.5], count = #(y > 0)): inputs
// from NumPy-written .npz files, fill modes, outputs checked by NumPy against the closed form,
// the timing summary format, profiling, and errors that name the input and write no output.
#include <fstream>
#include <regex>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using ingot::testing::CliTest;
using RunTest = CliTest;

constexpr const char* kSaveInputs =
    "x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)\n"
    "b = np.array([0.25, 0.5, -10], np.float32)\n";

TEST_F(RunTest, InputsFromNpzOutputsToNpz) {
  ASSERT_EQ(python(std::string(kSaveInputs) + "np.savez(d + '/in.npz', x=x, bias=b)"), 0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --outputs '" + path("out.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      python(
          std::string(kSaveInputs) +
          "o = np.load(d + '/out.npz')\n"
          "assert sorted(o.keys()) == ['count', 'y'], list(o.keys())\n"
          "want = 2 * x + b + np.array([0.5, 1, 1.5], np.float32)\n"
          "assert o['y'].dtype == np.float32 and (o['y'] == want).all(), o['y']\n"
          "assert o['count'].dtype == np.int64 and o['count'].tolist() == [int((want > 0).sum())]"),
      0);
}

TEST_F(RunTest, MissingInputsAreFilled) {
  ASSERT_EQ(python("np.savez(d + '/in.npz', bias=np.zeros(3, np.float32))"), 0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --fill-mode ones --outputs '" + path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("y = np.load(d + '/o.npz')['y']\n"
                   "assert (y == np.array([[2.5, 3, 3.5]] * 2, np.float32)).all(), y"),
            0);
  r = ingot("run '" + artifact("fake_affine") + "' --fill-mode zeros --outputs '" + path("z.npz") +
            "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("y = np.load(d + '/z.npz')['y']\n"
                   "assert (y == np.array([[0.5, 1, 1.5]] * 2, np.float32)).all(), y"),
            0);
}

TEST_F(RunTest, RandomFillIsInUnitRange) {
  auto r = ingot("run '" + artifact("fake_affine") + "' --outputs '" + path("r.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // x, bias in [0, 1): y = 2x + bias + c lies in [c, c + 3).
  EXPECT_EQ(python("y = np.load(d + '/r.npz')['y']; c = np.array([0.5, 1, 1.5])\n"
                   "assert ((y >= c) & (y < c + 3)).all(), y\n"
                   "assert len(np.unique(y)) > 1, y"),
            0);
}

TEST_F(RunTest, PrintsOutputsWithoutOutputsFile) {
  auto r = ingot("run '" + artifact("fake_affine") + "' --fill-mode zeros");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "y: float32 [2,3]\n  [0.5, 1, 1.5, 0.5, 1, 1.5]\ncount: int64 [1]\n  [6]\n");
}

TEST_F(RunTest, PrintTimeSummaryFormat) {
  auto r = ingot("run '" + artifact("fake_affine") +
                 "' --fill-mode zeros --print-time --repeat 4 "
                 "--number 2 --outputs '" +
                 path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex summary(
      "Execution time summary:\n"
      " mean \\(ms\\)   median \\(ms\\)    max \\(ms\\)     min \\(ms\\)     std \\(ms\\)  \n"
      "( *[0-9]+\\.[0-9]{4} *){5}\n");
  EXPECT_TRUE(std::regex_match(r.out, summary)) << r.out;
  // Each value is centred in a 12-wide column, columns separated by one space.
  std::string values = r.out.substr(r.out.rfind(')') + 4);
  EXPECT_EQ(values.size(), 5 * 12 + 4 + 1) << values;
}

TEST_F(RunTest, MinRepeatMsRaisesTheRunsPerSample) {
  // The fake affine model runs in microseconds: 20 ms per sample needs many runs.
  auto r = ingot("run '" + artifact("fake_affine") +
                 "' --fill-mode zeros --print-time --repeat 2 --min-repeat-ms 20 --outputs '" +
                 path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m,
                                std::regex("Runs per sample: ([0-9]+) \\(--min-repeat-ms 20\\)\n")))
      << r.out;
  EXPECT_GT(std::stoi(m[1]), 10) << r.out;
  EXPECT_NE(r.out.find("Execution time summary:"), std::string::npos) << r.out;
  // With --cache-flush each run is timed cold after its own flush: the warm-up only, --number
  // stays (raising it from the short run's time made a tuner's measurement run for minutes).
  r = ingot("run '" + artifact("fake_affine") +
            "' --fill-mode zeros --print-time --repeat 2 --number 3 --min-repeat-ms 20 "
            "--cache-flush --outputs '" +
            path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Runs per sample: 3 (--min-repeat-ms 20)\n"), std::string::npos) << r.out;
}

TEST_F(RunTest, CacheFlushTimesColdRunsWithTheSameOutputs) {
  auto warm = ingot("run '" + artifact("fake_affine") +
                    "' --fill-mode ones --repeat 2 --outputs '" + path("warm.npz") + "'");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  auto cold = ingot("run '" + artifact("fake_affine") +
                    "' --fill-mode ones --cache-flush --print-time --repeat 3 --number 2 "
                    "--outputs '" +
                    path("cold.npz") + "'");
  ASSERT_EQ(cold.exit_code, 0) << cold.err;
  EXPECT_NE(cold.out.find("Execution time summary:"), std::string::npos) << cold.out;
  EXPECT_EQ(ingot::testing::read_text(path("warm.npz")),
            ingot::testing::read_text(path("cold.npz")));
}

// --cache-state: warm, cold (as --cache-flush) and model (the artifact's memory evicted, then the
// inputs read back) time the same runs: the outputs do not change, filled inputs or given ones. A
// state that is none of those, or one given with --cache-flush, is a usage error naming the option.
TEST_F(RunTest, CacheStatesTimeTheSameRuns) {
  ASSERT_EQ(python(std::string(kSaveInputs) + "np.savez(d + '/in.npz', x=x, bias=b)"), 0);
  auto warm = ingot("run '" + artifact("fake_affine") +
                    "' --fill-mode random --repeat 2 --outputs '" + path("warm.npz") + "'");
  ASSERT_EQ(warm.exit_code, 0) << warm.err;
  auto given_warm = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                          "' --repeat 2 --outputs '" + path("given_warm.npz") + "'");
  ASSERT_EQ(given_warm.exit_code, 0) << given_warm.err;
  for (const char* state : {"warm", "cold", "model"}) {
    SCOPED_TRACE(state);
    auto r = ingot("run '" + artifact("fake_affine") + "' --fill-mode random --cache-state " +
                   state + " --print-time --repeat 3 --number 2 --outputs '" + path("s.npz") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Execution time summary:"), std::string::npos) << r.out;
    // The model state evicts the artifact's loaded segments: its code, record and constants.
    const size_t evicted = r.out.find("Cache state: model (before each run the artifact's ");
    EXPECT_EQ(evicted != std::string::npos, std::string(state) == "model") << r.out;
    if (evicted != std::string::npos) {
      EXPECT_GT(std::stod(r.out.substr(evicted + 51)), 1.0) << r.out;  // KiB
    }
    EXPECT_EQ(ingot::testing::read_text(path("warm.npz")),
              ingot::testing::read_text(path("s.npz")));
    auto given =
        ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
              "' --cache-state " + state + " --repeat 2 --outputs '" + path("g.npz") + "'");
    ASSERT_EQ(given.exit_code, 0) << given.err;
    EXPECT_EQ(ingot::testing::read_text(path("given_warm.npz")),
              ingot::testing::read_text(path("g.npz")));
  }
  auto bad = ingot("run '" + artifact("fake_affine") + "' --cache-state hot");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--cache-state"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("internal error"), std::string::npos) << bad.err;
  auto both = ingot("run '" + artifact("fake_affine") + "' --cache-state warm --cache-flush");
  EXPECT_NE(both.exit_code, 0);
  EXPECT_NE(both.err.find("--cache-flush"), std::string::npos) << both.err;
}

// Machine numbers given by file: the sse2 peak 100 GFLOP/s, memory 10 GB/s (ridge 10 FLOP/byte).
constexpr const char* kDeviceInfo =
    R"({"cpu": "test", "features": "", "threads": 1,
 "fp32_peaks": [{"isa": "sse2", "gflops_1_thread": 100.0, "gflops_all_threads": 100.0}],
 "memory_read_gbs": 12.0, "memory_triad_gbs": 10.0, "memory_read_gbs_1_thread": 12.0})";

TEST_F(RunTest, ProfilePrintsKernelsOnTheRoofline) {
  std::ofstream(path("device.json")) << kDeviceInfo;
  auto r = ingot("run '" + artifact("fake_affine") +
                 "' --fill-mode zeros --profile --repeat 3 --device-info '" + path("device.json") +
                 "' --profile-json '" + path("p.json") + "' --outputs '" + path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Kernel profile (3 runs; time per run):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Roofline: sse2 float32 peak 100.0 GFLOP/s, memory 10.0 GB/s"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("median (ms)"), std::string::npos) << r.out;
  // name, fused ops, calls per run, ..., bound: 6 FLOP over 48 bytes is left of the ridge.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nfake_scale +Mul +1 .* memory\n"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nfake_bias_add +Add\\+Cast +1 .* memory\n")))
      << r.out;
  // The JSON: the kernel table's numbers and the roofline placement in closed form.
  EXPECT_EQ(python("import json\n"
                   "j = json.load(open(d + '/p.json'))\n"
                   "assert j['runs'] == 3 and j['roofline']['peak_gflops'] == 100.0, j\n"
                   "assert j['roofline']['bandwidth_gbs'] == 10.0, j\n"
                   "k = {x['name']: x for x in j['kernels']}\n"
                   "s = k['fake_scale']\n"
                   "assert s['ops'] == 'Mul' and s['flops'] == 6.0 and s['bytes'] == 48.0, s\n"
                   "assert s['intensity'] == 0.125 and s['roof_gflops'] == 1.25, s\n"
                   "assert s['bound'] == 'memory' and s['calls_per_run'] == 1, s\n"
                   "b = k['fake_bias_add']\n"
                   "assert abs(b['intensity'] - 12 / 84) < 1e-12 and b['bound'] == 'memory', b\n"
                   "assert abs(sum(x['share'] for x in j['kernels']) - 1) < 1e-9, j\n"),
            0);
}

TEST_F(RunTest, ProfileDeviceInfoErrors) {
  auto r = ingot("run '" + artifact("fake_affine") + "' --profile --device-info '" +
                 path("none.json") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --device-info: cannot open '" + path("none.json") + "'\n");
  std::ofstream(path("bad.json")) << "{\"cpu\": 1}";
  r = ingot("run '" + artifact("fake_affine") + "' --profile --device-info '" + path("bad.json") +
            "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: --device-info: '" + path("bad.json") +
                            "' is not the JSON of `ingot device-info --json`",
                        0),
            0u)
      << r.err;
}

TEST_F(RunTest, NumThreadsOption) {
  auto r = ingot("run '" + artifact("fake_affine") +
                 "' --num-threads 3 --fill-mode ones --outputs '" + path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      python(
          "assert (np.load(d + '/o.npz')['y'] == np.array([[3.5, 4, 4.5]] * 2, np.float32)).all()"),
      0);
}

TEST_F(RunTest, WrongDtypeNamesTheInput) {
  ASSERT_EQ(python("np.savez(d + '/in.npz', x=np.zeros((2, 3), np.int64))"), 0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --outputs '" + path("o.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: input 'x': expected dtype float32, got int64\n");
  EXPECT_FALSE(std::filesystem::exists(path("o.npz")));
}

TEST_F(RunTest, WrongShapeNamesTheInput) {
  ASSERT_EQ(python("np.savez(d + '/in.npz', bias=np.zeros((1, 3), np.float32))"), 0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --outputs '" + path("o.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: input 'bias': expected shape [3], got [1,3]\n");
  EXPECT_FALSE(std::filesystem::exists(path("o.npz")));
}

TEST_F(RunTest, UnknownInputName) {
  ASSERT_EQ(python("np.savez(d + '/in.npz', image=np.zeros(3, np.float32))"), 0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: '" + path("in.npz") +
                       "' has an array 'image' that is not an input of model 'fake_affine' "
                       "(inputs: x, bias)\n");
}

TEST_F(RunTest, MissingInputsFile) {
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("nope.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: cannot open '" + path("nope.npz") + "': no such file\n");
}

TEST_F(RunTest, ModelErrorKeepsExistingOutputFile) {
  ASSERT_EQ(python("np.savez(d + '/o.npz', old=np.ones(1))\n"
                   "np.savez(d + '/in.npz', bias=np.array([0, np.nan, 0], np.float32))"),
            0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --outputs '" + path("o.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: model 'fake_affine' failed: bias contains NaN\n");
  EXPECT_EQ(python("assert list(np.load(d + '/o.npz').keys()) == ['old']"), 0);
}

TEST_F(RunTest, BadArtifact) {
  auto r = ingot("run '" + artifact("fake_affine_bad_magic") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err.rfind("error: artifact '" + artifact("fake_affine_bad_magic") + "' has bad magic", 0),
      0u)
      << r.err;
}

TEST_F(RunTest, BadOptions) {
  auto r = ingot("run '" + artifact("fake_affine") + "' --repeat 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --repeat and --number must be at least 1 (got --repeat 0 --number 1)\n");
  r = ingot("run '" + artifact("fake_affine") + "' --fill-mode gaussian");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("gaussian"), std::string::npos) << r.err;
}

}  // namespace
