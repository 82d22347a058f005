// `ingot run --check ref.npz` on the fake artifact (y = 2x + bias + [0.5, 1, 1.5], count =
// #(y > 0)) with references written by NumPy from the closed form: exit 0 when every output
// matches within atol + rtol * |expected|, 3 with the worst element's index and values when one
// does not, and one-line errors for a reference naming no output.
#include <string>

#include "cli/cli_test_util.h"

namespace {

using ingot::testing::CliTest;
using RunCheckTest = CliTest;

constexpr const char* kInputsAndWant =
    "x = np.array([[1, -2, 3], [-4, 5, -6]], np.float32)\n"
    "b = np.array([0.25, 0.5, -10], np.float32)\n"
    "np.savez(d + '/in.npz', x=x, bias=b)\n"
    "want = 2 * x + b + np.array([0.5, 1, 1.5], np.float32)\n"
    "count = np.array([int((want > 0).sum())], np.int64)\n";

TEST_F(RunCheckTest, MatchingReferencePasses) {
  ASSERT_EQ(python(std::string(kInputsAndWant) +
                   "np.savez(d + '/ref.npz', y=want + np.float32(1e-6), count=count)"),
            0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --check '" + path("ref.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("check: output 'y' OK: 6 elements"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check: output 'count' OK: 1 elements, max |diff| 0"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 2 of 2 outputs match"), std::string::npos) << r.out;
}

TEST_F(RunCheckTest, MismatchNamesOutputWorstElementAndIndex) {
  // Element [1, 2] is off by 0.5, [0, 1] by 0.01: the worst is [1, 2].
  ASSERT_EQ(python(std::string(kInputsAndWant) +
                   "bad = want.copy(); bad[1, 2] += 0.5; bad[0, 1] += 0.01\n"
                   "np.savez(d + '/ref.npz', y=bad, count=count)"),
            0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --check '" + path("ref.npz") + "'");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("check: output 'y' MISMATCH: 2 of 6 elements differ; worst at index [1, "
                       "2]: got -20.5, expected -20"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: 1 of 2 outputs match"), std::string::npos) << r.out;
  // A tolerance that covers both differences passes.
  r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") + "' --check '" +
            path("ref.npz") + "' --atol 0.6");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // rtol scales with |expected|: 0.5 / 20 < 0.04, 0.01 / 2.5 < 0.04.
  r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") + "' --check '" +
            path("ref.npz") + "' --rtol 0.04 --atol 0");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST_F(RunCheckTest, IntegerOutputsMustMatchExactly) {
  ASSERT_EQ(
      python(std::string(kInputsAndWant) + "np.savez(d + '/ref.npz', y=want, count=count + 1)"), 0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --check '" + path("ref.npz") + "' --atol 10");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("check: output 'count' MISMATCH: 1 of 1 elements differ; worst at index "
                       "[0]"),
            std::string::npos)
      << r.out;
}

TEST_F(RunCheckTest, ShapeMismatchAndUnknownNames) {
  ASSERT_EQ(python(std::string(kInputsAndWant) +
                   "np.savez(d + '/ref.npz', y=np.ascontiguousarray(want.T))"),
            0);
  auto r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") +
                 "' --check '" + path("ref.npz") + "'");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("check: output 'y' MISMATCH: shape [2,3] but the reference has [3,2]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("check: output 'count' not checked"), std::string::npos) << r.out;
  ASSERT_EQ(python(std::string(kInputsAndWant) + "np.savez(d + '/odd.npz', z=want)"), 0);
  r = ingot("run '" + artifact("fake_affine") + "' --inputs '" + path("in.npz") + "' --check '" +
            path("odd.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: --check: '" + path("odd.npz") +
                       "' has an array 'z', which is no output of the model\n");
  r = ingot("run '" + artifact("fake_affine") + "' --check '" + path("missing.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.npz"), std::string::npos) << r.err;
}

}  // namespace
