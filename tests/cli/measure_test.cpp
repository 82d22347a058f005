// `ingot measure`: several artifacts timed in one process, one JSON line each, outputs written
// per artifact (the same as `ingot run` writes), a candidate that does not load reported as its
// own error, and mismatched arguments refused.
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class MeasureTest : public CliTest {};

TEST_F(MeasureTest, TimesEachArtifactAndWritesItsOutputs) {
  const std::string a = artifact("fake_affine"), bad = artifact("fake_affine_bad_magic");
  auto r =
      ingot("measure '" + a + "' -o " + path("a.npz") + " '" + bad + "' -o " + path("bad.npz") +
            " '" + a + "' -o " + path("again.npz") + " --repeat 3 --min-repeat-ms 2");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::vector<nlohmann::json> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 3u) << r.out;
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(lines[k].at("index"), k) << r.out;
  EXPECT_GT(lines[0].at("ms").get<double>(), 0) << r.out;
  EXPECT_GE(lines[0].at("median_ms").get<double>(), lines[0].at("ms").get<double>()) << r.out;
  EXPECT_NE(lines[1].at("error").get<std::string>().find("bad magic"), std::string::npos);
  EXPECT_EQ(lines[2].at("ms"), lines[0].at("ms"));  // the same path is measured once
  EXPECT_FALSE(std::filesystem::exists(path("bad.npz")));
  // The outputs are what `ingot run` writes for the same artifact.
  auto run = ingot("run '" + a + "' --outputs " + path("run.npz"));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_text(path("a.npz")), read_text(path("run.npz")));
  EXPECT_EQ(read_text(path("again.npz")), read_text(path("run.npz")));
}

// --per-kernel: single profiled calls; each line also gives every kernel's fastest call, and a
// run's kernels take no longer than the run.
TEST_F(MeasureTest, PerKernelGivesEachKernelsFastestCall) {
  const std::string a = artifact("fake_affine");
  auto r = ingot("measure '" + a + "' -o " + path("a.npz") + " '" + a + "' -o " + path("b.npz") +
                 " --repeat 4 --per-kernel");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::istringstream in(r.out);
  std::string l;
  ASSERT_TRUE(std::getline(in, l)) << r.out;
  nlohmann::json line = nlohmann::json::parse(l);
  ASSERT_TRUE(line.contains("kernels")) << l;
  const nlohmann::json& k = line.at("kernels");
  ASSERT_EQ(k.size(), 2u) << l;
  double run = line.at("ms").get<double>();
  for (const char* name : {"fake_scale", "fake_bias_add"}) {
    ASSERT_TRUE(k.contains(name)) << l;
    EXPECT_GT(k.at(name).get<double>(), 0) << l;
    EXPECT_LE(k.at(name).get<double>(), run) << l;
  }
  // Without the flag the lines have no kernels.
  r = ingot("measure '" + a + "' -o " + path("c.npz") + " --repeat 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("kernels"), std::string::npos) << r.out;
}

// bench/artifact_ab.py over it: a line per kernel with both fastest calls and their ratio, the
// sums and the whole call's fastest and median.
TEST_F(MeasureTest, ArtifactAbComparesKernelByKernel) {
  const std::string a = artifact("fake_affine");
  std::string cmd = "python3 '" + std::string(INGOT_SOURCE_DIR) + "/bench/artifact_ab.py' '" + a +
                    "' '" + a + "' --iters 3 --min-ms 0 --ingot '" + cli() + "' --record-dir '" +
                    path("runs") + "' > " + path("ab.txt");  // the raw record: not in docs/
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(
      python("lines = open(d + '/ab.txt').read().splitlines()\n"
             "assert lines[0] == '3 calls each; per kernel: fastest A, fastest B (ms), A/B'\n"
             "rows = {l[:44].strip(): l[44:].split() for l in lines[1:]}\n"
             "for k in ('fake_scale', 'fake_bias_add', 'whole call, fastest',\n"
             "          'whole call, median', 'sum of the fastest calls (shared kernels)'):\n"
             "  a, b, r = rows[k]\n"
             "  a, b = float(a), float(b)\n"
             "  assert a >= 0 and b >= 0, (k, a, b)\n"
             "  if b >= 0.01: assert abs(float(r) - a / b) < 1e-2 * a / b + 1e-3, (k, a, b, r)\n"
             "  assert r == '-' or float(r) > 0, (k, r)\n"
             "assert float(rows['whole call, fastest'][0]) > 0\n"),
      0);
}

// bench/ort_node_compare.py: a conv with its BatchNormalization and Relu, then a MatMul. Both
// sides' times are attributed to the ONNX node each kernel / ORT node computes (the Conv, which
// ingot and ORT both fuse BatchNormalization and Relu into, and the MatMul), with the ratio.
TEST_F(MeasureTest, OrtNodeCompareAttributesKernelsAndNodesToTheirOnnxNode) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "rng = np.random.default_rng(0)\n"
                   "f = lambda *s: rng.standard_normal(s).astype(np.float32)\n"
                   "nodes = [helper.make_node('Conv', ['x', 'W'], ['c'], name='conv',\n"
                   "                          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),\n"
                   "  helper.make_node('BatchNormalization', ['c', 's', 'o', 'm', 'v'], ['n'],\n"
                   "                   name='bn'),\n"
                   "  helper.make_node('Relu', ['n'], ['y'], name='relu'),\n"
                   "  helper.make_node('MatMul', ['y', 'M'], ['z'], name='mm')]\n"
                   "inits = [numpy_helper.from_array(a, n) for n, a in [('W', f(32, 16, 3, 3)),\n"
                   "  ('s', f(32)), ('o', f(32)), ('m', f(32)), ('v', np.abs(f(32)) + 1),\n"
                   "  ('M', f(24, 40))]]\n"
                   "g = helper.make_graph(nodes, 'cm',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 16, 24, 24])],\n"
                   "  [helper.make_tensor_value_info('z', TensorProto.FLOAT, [1, 32, 24, 40])],\n"
                   "  inits)\n"
                   "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
                   "onnx.save(m, d + '/model.onnx')\n"
                   "np.savez(d + '/x.npz', x=f(1, 16, 24, 24))\n"),
            0);
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string cmd = "python3 '" + std::string(INGOT_SOURCE_DIR) + "/bench/ort_node_compare.py' '" +
                    path("model.onnx") + "' '" + path("m.so") + "' --inputs '" + path("x.npz") +
                    "' --iters 3 --rounds 2 --min-ms 0 --threads 1 --ingot '" + cli() +
                    "' --record-dir '" + path("runs") + "' > " + path("cmp.txt");
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_EQ(python("lines = open(d + '/cmp.txt').read().splitlines()\n"
                   "assert lines[0].startswith('3 calls each; per ONNX node'), lines[0]\n"
                   "rows = {l.split()[0]: l.split()[1:] for l in lines[1:3]}\n"
                   "assert sorted(rows) == ['conv', 'mm'], lines\n"
                   "assert rows['conv'][0] == 'Conv' and rows['mm'][0] == 'MatMul', rows\n"
                   "for op, a, b, q in rows.values():\n"
                   "  a, b = float(a), float(b)\n"
                   "  assert a > 0 and b > 0, (op, a, b)\n"
                   "  assert abs(float(q) - a / b) <= 0.01 * a / b + 0.006, (op, a, b, q)\n"
                   "tail = {l[:53].strip(): l[53:].split() for l in lines[3:7]}\n"
                   "both = [float(x) for x in tail['nodes on both sides'][:2]]\n"
                   "allk = [float(x) for x in tail['all kernels / nodes'][:2]]\n"
                   "assert all(a >= b > 0 for a, b in zip(allk, both)), (allk, both)\n"
                   "assert lines[7].startswith(\"ORT's node sums by pass\"), lines[7]\n"
                   "parts = lines[7].split(':')\n"
                   "assert len(parts[1].split(';')[0].split()) == 2, lines[7]  # a sum per pass\n"
                   "assert len(parts[2].split()) == 2, lines[7]  # equal passes on both sides\n"),
            0);
}

TEST_F(MeasureTest, EveryArtifactNeedsItsOutputs) {
  auto r = ingot("measure '" + artifact("fake_affine") + "' '" + artifact("fake_affine") + "' -o " +
                 path("a.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("measure: 2 artifacts but 1 -o outputs (one each)"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ingot::testing
