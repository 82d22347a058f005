// `ingot run --batch`: many runs in one process, one `ingot run` command line per line. Each run's
// outputs are checked by NumPy against the fake artifact's closed form (y = 2x + bias + [0.5, 1,
// 1.5], count = #(y > 0)); a failing line reports its one-line error and status and the later
// lines still run; the thread count and device follow each line; misuse is one clear error.
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"

namespace {

using ingot::testing::CliTest;

class RunBatch : public CliTest {
 protected:
  void write_file(const std::string& name, const std::string& text) {
    std::ofstream(path(name)) << text;
  }
  // NumPy asserts that d/NAME holds the closed form for inputs x = X, bias = B.
  int expect_closed_form(const std::string& name, const std::string& x, const std::string& b) {
    return python("x = np.array(" + x + ", np.float32); b = np.array(" + b +
                  ", np.float32)\n"
                  "o = np.load(d + '/" +
                  name +
                  "')\n"
                  "want = 2 * x + b + np.array([0.5, 1, 1.5], np.float32)\n"
                  "assert (o['y'] == want).all(), o['y']\n"
                  "assert o['count'].tolist() == [int((want > 0).sum())], o['count']\n");
  }
};

TEST_F(RunBatch, RunsEveryLineAndReportsEachStatus) {
  ASSERT_EQ(python("np.savez(d + '/a.npz', x=np.array([[1, -2, 3], [-4, 5, -6]], np.float32),\n"
                   "         bias=np.array([0.25, 0.5, -10], np.float32))\n"
                   "np.savez(d + '/b.npz', x=np.full((2, 3), -1, np.float32),\n"
                   "         bias=np.array([9, 0, 1], np.float32))\n"),
            0);
  const std::string fake = artifact("fake_affine");
  write_file("runs.txt", "# two runs, a missing artifact, a bad option, a blank line\n" + fake +
                             " --inputs " + path("a.npz") + " --outputs " + path("a.out.npz") +
                             "\n" + path("missing.so") + "\n" + fake + " --repeat 0\n\n\"" + fake +
                             "\" --inputs \"" + path("b.npz") + "\" --outputs " +
                             path("b.out.npz") + " --num-threads 1\r\n" + fake +
                             " --no-such-option\n");
  auto r = ingot("run --batch " + path("runs.txt"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out,
            "ingot-batch: 2 exit 0\n"
            "error: cannot open artifact '" +
                path("missing.so") +
                "': No such file or directory\n"
                "ingot-batch: 3 exit 1\n"
                "error: --repeat and --number must be at least 1 (got --repeat 0 --number 1)\n"
                "ingot-batch: 4 exit 1\n"
                "ingot-batch: 6 exit 0\n"
                "error: The following argument was not expected: --no-such-option\n"
                "ingot-batch: 7 exit 1\n")
      << r.err;
  EXPECT_EQ(expect_closed_form("a.out.npz", "[[1, -2, 3], [-4, 5, -6]]", "[0.25, 0.5, -10]"), 0);
  EXPECT_EQ(expect_closed_form("b.out.npz", "np.full((2, 3), -1)", "[9, 0, 1]"), 0);
}

TEST_F(RunBatch, ReadsStandardInputAndPrintsEachRunsOutputBeforeItsStatus) {
  ASSERT_EQ(python("np.savez(d + '/a.npz', x=np.ones((2, 3), np.float32),\n"
                   "         bias=np.zeros(3, np.float32))\n"),
            0);
  write_file("runs.txt", artifact("fake_affine") + " --inputs " + path("a.npz") + "\n");
  auto r = ingot("run --batch - < " + path("runs.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Printed outputs (no --outputs): y = 2 + [0.5, 1, 1.5] per row, then the status line.
  EXPECT_EQ(r.out.rfind("y: float32 [2,3]\n  [2.5, 3, 3.5, 2.5, 3, 3.5]\n", 0), 0u) << r.out;
  EXPECT_TRUE(r.out.ends_with("ingot-batch: 1 exit 0\n")) << r.out;
}

TEST_F(RunBatch, MisuseIsOneClearError) {
  auto r = ingot("run --batch " + path("none.txt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --batch: cannot read '" + path("none.txt") + "'\n");
  write_file("runs.txt", "--repeat 2\n");
  r = ingot("run --batch " + path("runs.txt") + " --repeat 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: --batch takes each run's artifact and options from its lines; give it "
            "alone\n");
  r = ingot("run " + artifact("fake_affine") + " --batch " + path("runs.txt"));
  EXPECT_EQ(r.exit_code, 1);
  r = ingot("run --batch " + path("runs.txt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "error: --batch: the line '--repeat 2' names no artifact\ningot-batch: 1 exit 1\n");
  r = ingot("run");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: run: give an artifact (or --batch FILE)\n");
}

}  // namespace
