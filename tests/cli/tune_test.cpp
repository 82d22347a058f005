// `ingot tune` through the binary: trials of a model's tasks appended as records (one line
// each), `compile --tuning-records` applying them with outputs still equal to a NumPy closed
// form, candidates that fail their measurement recorded without stopping the tuner, and bad
// options refused.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class TuneTest : public CliTest {
 protected:
  // d/model.onnx: y = relu(conv3x3(x, W) + b), a depthwise 3x3 conv of y, then z = dw @ M (a
  // conv task, a depthwise task whose rule has no choices, a matmul task, and three injective
  // tasks: the two layout conversions around the blocked convs (x into channel blocks and the
  // depthwise output back to NCHW for the MatMul) and the conv's zero padding (a Pad node); six
  // in order x_to_nchwc, x_nchwc_padded, conv, dw, e_from_nchwc, mm), d/x.npz and d/want.npy
  // (NumPy closed form). The schedule-search tests pass --conv-algorithm direct: the conv's
  // algorithm, which `ingot tune` otherwise chooses by timing, stays fixed, and so do the tasks.
  void write_model() {
    ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                     "rng = np.random.default_rng(0)\n"
                     "W = rng.standard_normal((24, 8, 3, 3)).astype(np.float32)\n"
                     "b = rng.standard_normal(24).astype(np.float32)\n"
                     "D = rng.standard_normal((24, 1, 3, 3)).astype(np.float32)\n"
                     "M = rng.standard_normal((14, 20)).astype(np.float32)\n"
                     "nodes = [helper.make_node('Conv', ['x', 'W', 'b'], ['c'], name='conv',\n"
                     "                          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),\n"
                     "         helper.make_node('Relu', ['c'], ['y'], name='relu'),\n"
                     "         helper.make_node('Conv', ['y', 'D'], ['e'], name='dw', group=24,\n"
                     "                          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),\n"
                     "         helper.make_node('MatMul', ['e', 'M'], ['z'], name='mm')]\n"
                     "g = helper.make_graph(nodes, 'cm',\n"
                     "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 8, 14, 14])],\n"
                     "  [helper.make_tensor_value_info('z', TensorProto.FLOAT, [1, 24, 14, 20])],\n"
                     "  [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(b, 'b'),\n"
                     "   numpy_helper.from_array(D, 'D'), numpy_helper.from_array(M, 'M')])\n"
                     "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
                     "onnx.save(m, d + '/model.onnx')\n"
                     "x = rng.standard_normal((1, 8, 14, 14)).astype(np.float32)\n"
                     "np.savez(d + '/x.npz', x=x)\n"
                     "def pad(a): return np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))\n"
                     "xp = pad(x.astype(np.float64))\n"
                     "c = np.zeros((1, 24, 14, 14))\n"
                     "for r in range(3):\n"
                     "  for t in range(3):\n"
                     "    c += np.einsum('nchw,oc->nohw', xp[:, :, r:r + 14, t:t + 14],\n"
                     "                   W[:, :, r, t].astype(np.float64))\n"
                     "yp = pad(np.maximum(c + b[None, :, None, None], 0))\n"
                     "e = np.zeros((1, 24, 14, 14))\n"
                     "for r in range(3):\n"
                     "  for t in range(3):\n"
                     "    e += yp[:, :, r:r + 14, t:t + 14] * D[None, :, 0, r, t, None, None]\n"
                     "np.save(d + '/want.npy', e @ M.astype(np.float64))\n"),
              0);
  }

  // Runs artifact `so` on d/x.npz and checks its output against the closed form d/want.npy.
  void expect_closed_form(const std::string& so) {
    auto r =
        ingot("run " + path(so) + " --inputs " + path("x.npz") + " --outputs " + path("z.npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(python("z = np.load(d + '/z.npz')['z']\n"
                     "want = np.load(d + '/want.npy')\n"
                     "assert np.allclose(z, want, rtol=1e-4, atol=1e-4), np.abs(z - want).max()\n"),
              0);
  }
};

TEST_F(TuneTest, TrialsBecomeRecordsThatCompileApplies) {
  write_model();
  auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                 " -o " + path("r.jsonl") +
                 " --trials 16 --repeat 3 --number 1 --num-threads 1 --seed 3 --report " +
                 path("tune.html"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // The HTML report: a curve point per trial line, a table row per task.
  EXPECT_EQ(python("import re\n"
                   "out = open(d + '/stdout').read()\n"
                   "html = open(d + '/tune.html').read()\n"
                   "pts = re.search(r'<polyline[^>]*points=\"([^\"]*)\"', html).group(1).split()\n"
                   "assert len(pts) == out.count(': trial '), (len(pts), out.count(': trial '))\n"
                   "for p in pts:\n"
                   "  x, y = map(float, p.split(','))\n"
                   "  assert 50 <= x <= 610 and 10 <= y <= 230, p\n"
                   "assert html.count('<tr><td>') == 6, html.count('<tr><td>')\n"),
            0);
  EXPECT_NE(r.out.find("task 1/6 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task 6/6 "), std::string::npos) << r.out;
  // Sixteen trials: each task's default and at least one more point (the depthwise task and the
  // layout conversions, with the fewest FLOPs or the smallest spaces, are capped at two).
  for (const char* task : {"task 1/6 x_to_nchwc_LayoutToBlocked", "task 2/6 x_nchwc_padded_Pad",
                           "task 3/6 conv_ConvNCHWc", "task 4/6 dw_ConvNCHWc",
                           "task 5/6 e_from_nchwc_LayoutFromBlocked", "task 6/6 mm_MatMul"})
    EXPECT_NE(r.out.find(std::string(task) + " (x1): trial 2/"), std::string::npos) << task;
  EXPECT_NE(r.out.find("tuned kernels, weighted by calls:"), std::string::npos) << r.out;
  // --cache-state auto: the model's few KB fit any last-level cache, so candidates run warm.
  EXPECT_NE(r.out.find("candidates timed from a warm cache: the model's constants and workspace "
                       "take 0.1 MiB, the last-level cache "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("s, timed from a warm cache)"), std::string::npos) << r.out;
  // The tuned kernels checked inside the whole model (alternating with the default model), or
  // nothing to check when every task's best is its default.
  EXPECT_TRUE(r.out.find("in the model, fastest of 20 alternating calls: default ") !=
                  std::string::npos ||
              r.out.find("in the model: no task to check") != std::string::npos)
      << r.out;
  // Each checked task has an in-model record for its default's trace, then one for each of up
  // to three other confirmed finalists; the line printed for it names the fastest there.
  EXPECT_EQ(python("import re\n"
                   "rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "for t in {r['task'] for r in rs}:\n"
                   "  im = [r for r in rs if r['task'] == t and r.get('origin') == 'in-model']\n"
                   "  assert len(im) == 0 or 2 <= len(im) <= 4, len(im)\n"
                   "  if im:\n"
                   "    first = [r for r in rs if r['task'] == t][0]\n"
                   "    assert im[0]['trace'] == first['trace']\n"
                   "    keys = {json.dumps(r['trace'], sort_keys=True) for r in im}\n"
                   "    assert len(keys) == len(im), 'one record per schedule'\n"
                   "    assert all(r.get('confirmed') and r['seconds'] > 0 for r in im)\n"
                   "out = open(d + '/stdout').read()\n"
                   "for line in re.findall(r'\\S+: in the model (.*) ms per call -> (.*)', out):\n"
                   "  cells = [c.split() for c in line[0].split(', ')]\n"
                   "  low = min(float(c[1]) for c in cells)\n"
                   "  best = [c[0] for c in cells if float(c[1]) == low]\n"
                   "  assert line[1] in ['the default' if b == 'default' else b for b in best], "
                   "line\n"),
            0);
  // One line per trial, each a record of one of the six tasks; each task's default measured,
  // then measured again with the finalists (confirmed records).
  EXPECT_EQ(python("rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "assert len(rs) >= 4, len(rs)\n"
                   "tasks = {r['task'] for r in rs}\n"
                   "assert len(tasks) == 6, tasks\n"
                   "assert {r['rule'] for r in rs} == {'blocked_conv2d', 'depthwise_conv_nchwc',\n"
                   "                                   'dense_matmul', 'injective'}\n"
                   "for t in tasks:\n"
                   "  first = [r for r in rs if r['task'] == t][0]\n"
                   "  assert first.get('seconds', 0) > 0, first.get('error')\n"
                   "  # the confirmation round measured the default again (and the finalists)\n"
                   "  conf = [r for r in rs if r['task'] == t and r.get('confirmed')]\n"
                   "  assert len(conf) >= 2 and conf[0]['trace'] == first['trace'], len(conf)\n"
                   "for r in rs:\n"
                   "  assert ('seconds' in r) != ('error' in r), r.keys()\n"
                   "  assert r['trace']['instructions'][0]['kind'] == 'get_block'\n"),
            0);
  r = ingot("compile " + path("model.onnx") + " -o " + path("t.so") + " --tuning-records " +
            path("r.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tuning records: 6 kernels (6 tasks) from records, 0 with the default"),
            std::string::npos)
      << r.out;
  // The same records compile to the same bytes (same output name, another directory).
  std::filesystem::create_directories(path("again"));
  auto again = ingot("compile " + path("model.onnx") + " -o " + path("again/t.so") +
                     " --tuning-records " + path("r.jsonl"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(path("t.so")), read_text(path("again/t.so")));
  expect_closed_form("t.so");
  // Every measured record's trace replays to its task's kernel: compiled alone, each one
  // schedules one task (a trace that did not replay would be skipped, the default used).
  ASSERT_EQ(python("rs = [l for l in open(d + '/r.jsonl') if 'seconds' in json.loads(l)]\n"
                   "for i, l in enumerate(rs):\n"
                   "  open(d + '/one%d.jsonl' % i, 'w').write(l)\n"
                   "open(d + '/count', 'w').write(str(len(rs)))\n"),
            0);
  const int measured = std::stoi(read_text(path("count")));
  ASSERT_GE(measured, 6);
  for (int i = 0; i < measured; ++i) {
    const std::string one = "one" + std::to_string(i) + ".jsonl";
    auto c = ingot("compile " + path("model.onnx") + " -o " + path("one.so") +
                   " --tuning-records " + path(one));
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_NE(c.out.find("tuning records: 1 kernels (1 tasks) from records, 5 with the default "
                         "schedule, 0 records skipped"),
              std::string::npos)
        << one << ": " << c.out;
  }
  // --tasks 5: the matmul alone, listed under its task number; records are appended.
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("r.jsonl") + " --trials 2 --tasks 5 --repeat 2 --number 1 --num-threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("task 1/1 mm_MatMul"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n5    mm_MatMul "), std::string::npos) << r.out;
}

TEST_F(TuneTest, TheSameSeedSamplesTheSameCandidates) {
  write_model();
  for (const char* out : {"a.jsonl", "b.jsonl", "c.jsonl"}) {
    std::string seed = std::string(out) == "c.jsonl" ? "9" : "5";
    auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                   " -o " + path(out) + " --tasks 2 --trials 5" +
                   " --repeat 1 --number 1 --num-threads 1 --seed " + seed);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  }
  // The default and the warm-up's random points (decisions included) repeat with the seed;
  // another seed draws others. (Later candidates also depend on measured times: mutations of
  // the fastest so far.)
  EXPECT_EQ(
      python("def traces(f):\n"
             "  return [json.dumps(r['trace'], sort_keys=True)\n"
             "          for r in map(json.loads, open(d + '/' + f)) if not r.get('confirmed')]\n"
             "a, b, c = traces('a.jsonl'), traces('b.jsonl'), traces('c.jsonl')\n"
             "assert len(a) == 5 and len(b) == 5 and a[:3] == b[:3], (len(a), len(b))\n"
             "assert a[0] == c[0] and a[1:3] != c[1:3]\n"),
      0);
}

TEST_F(TuneTest, ResumeContinuesWhereAnInterruptedRunStopped) {
  write_model();
  std::string common = " --tasks 2 --trials 6 --repeat 1 --number 1 --num-threads 1 --seed 4";
  auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                 " -o " + path("full.jsonl") + common);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // An interruption after three trials: the records hold their lines and nothing else.
  ASSERT_EQ(python("lines = open(d + '/full.jsonl').readlines()\n"
                   "open(d + '/part.jsonl', 'w').writelines(lines[:3])\n"),
            0);
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("part.jsonl") + common + " --resume");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // The cost model learnt from the three recorded trials (their traces replayed) and the three
  // new ones.
  EXPECT_NE(r.out.find("cost model: 6 measured candidates"), std::string::npos) << r.out;
  // The resumed run kept the three recorded trials, measured three new points, then confirmed.
  EXPECT_EQ(
      python("def trials(f):\n"
             "  rs = [json.loads(l) for l in open(d + '/' + f)]\n"
             "  return [json.dumps(r['trace'], sort_keys=True) for r in rs\n"
             "          if not r.get('confirmed')], sum(1 for r in rs if r.get('confirmed'))\n"
             "(a, ca), (b, cb) = trials('full.jsonl'), trials('part.jsonl')\n"
             "assert len(a) == 6 and len(b) == 6 and a[:3] == b[:3], (len(a), len(b))\n"
             "origins = [json.loads(l).get('origin') for l in open(d + '/full.jsonl')][:6]\n"
             "assert origins[:3] == ['default', 'random', 'random'], origins\n"
             "assert set(origins[3:]) <= {'random', 'mutation'}, origins\n"
             "assert len(set(b)) == len(b) and cb >= 2, (len(set(b)), cb)\n"
             "# each finalist confirmed once (the re-measured default is not a second one;\n"
             "# the check in the model records the default and the best again)\n"
             "conf = [json.dumps(json.loads(l)['trace'], sort_keys=True)\n"
             "        for l in open(d + '/part.jsonl') if json.loads(l).get('confirmed')\n"
             "        and json.loads(l).get('origin') != 'in-model']\n"
             "assert len(set(conf)) == len(conf), len(conf)\n"),
      0);
  // Once confirmed, a task is finished: resuming again measures nothing.
  std::string before = read_text(path("part.jsonl"));
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("part.jsonl") + common + " --resume");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("finished in the resumed run (6 trials)"), std::string::npos) << r.out;
  EXPECT_EQ(read_text(path("part.jsonl")), before);
}

TEST_F(TuneTest, FailedMeasurementsAreRecordedAndTheTunerGoesOn) {
  write_model();
  // Every measurement is killed at its timeout: each task's default fails, is recorded with
  // the error, and the tuner still finishes every task.
  auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                 " -o " + path("r.jsonl") + " --trials 6 --timeout 0.000001");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("timed out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task 6/6 "), std::string::npos) << r.out;
  EXPECT_EQ(python("rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "assert len(rs) == 6 and all('timed out' in r['error'] for r in rs), rs\n"),
            0);
  // Compiling with records that hold only failures keeps the default schedules.
  r = ingot("compile " + path("model.onnx") + " -o " + path("t.so") + " --tuning-records " +
            path("r.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 kernels (0 tasks) from records, 6 with the default"), std::string::npos)
      << r.out;
}

// A kernel faster than `ingot run --print-time`'s resolution (4 decimals of a millisecond: a
// 4-element Relu takes a few ns) is measured, not recorded as "no time in the run's output":
// the tuner reads `ingot measure`'s full-precision time.
TEST_F(TuneTest, KernelsUnderTheRunSummarysResolutionAreMeasured) {
  ASSERT_EQ(
      python("import onnx\nfrom onnx import helper, TensorProto\n"
             "x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4])\n"
             "y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 4])\n"
             "g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'])], 'g', [x], [y])\n"
             "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
             "onnx.save(m, d + '/tiny.onnx')\n"),
      0);
  auto r = ingot("tune " + path("tiny.onnx") + " -o " + path("r.jsonl") + " --trials 2");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(
      python("rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
             "assert rs and all('error' not in r and 0 < r['seconds'] < 1e-3 for r in rs), rs\n"),
      0);
}

// A free TCP port on the loopback interface (bound and released: a small race, fine for a test).
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    return 0;
  }
  close(fd);
  return ntohs(a.sin_port);
}

// Two workers on a redis-server of the test's own; the first dies holding its second job. The
// other claims that job once it has been idle, every trial is measured once and recorded once,
// and the records compile as the local ones do.
TEST_F(TuneTest, WorkersOnRedisSurviveOneDyingMidJob) {
  write_model();
  int port = free_port();
  ASSERT_GT(port, 0);
  std::string url = "redis://127.0.0.1:" + std::to_string(port);
  ASSERT_EQ(std::system(("redis-server --port " + std::to_string(port) +
                         " --bind 127.0.0.1 --save '' --appendonly no --daemonize yes" +
                         " --pidfile " + path("redis.pid") + " --logfile " + path("redis.log"))
                            .c_str()),
            0)
      << "redis-server (Debian redis-server, installed by scripts/install-deps --with-tests)";
  struct StopRedis {
    std::string pidfile;
    ~StopRedis() { std::system(("kill $(cat '" + pidfile + "') 2>/dev/null").c_str()); }
  } stop{path("redis.pid")};
  for (int i = 0; i < 100 && !std::filesystem::exists(path("redis.pid")); ++i) usleep(20000);
  // The workers stop when the test ends (or after two idle minutes, should it crash).
  struct StopWorkers {
    std::string dir;
    ~StopWorkers() {
      std::system(("kill $(cat '" + dir + "/w1.pid' '" + dir + "/w2.pid') 2>/dev/null").c_str());
    }
  } stop_workers{dir_.string()};
  auto worker = [&](const std::string& name, const std::string& extra) {
    std::string cmd = "'" + cli() + "' tune-worker " + url + " --name " + name +
                      " --claim-idle-ms 1000 --idle-exit 120 " + extra + " >'" +
                      path(name + ".log") + "' 2>&1 & echo $! >'" + path(name + ".pid") + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  };
  worker("w1", "--die-on-job 2");
  worker("w2", "");
  auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                 " -o " + path("r.jsonl") +
                 " --trials 8 --repeat 2 --number 1 --num-threads 1 --batch 4 --cache-state model" +
                 " --workers " + url);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // The workers time every run from the state asked for: flushed, inputs read back.
  EXPECT_NE(r.out.find("s, timed from a model cache)"), std::string::npos) << r.out;
  // One record per trial line the tuner printed, none failed, each measured by a worker.
  size_t trials = 0;
  for (size_t at = r.out.find(": trial "); at != std::string::npos;
       at = r.out.find(": trial ", at + 1))
    ++trials;
  EXPECT_EQ(python("rs = [json.loads(l) for l in open(d + '/r.jsonl') ]\n"
                   "trials = [r for r in rs if not r.get('confirmed')]\n"
                   "assert len(trials) == " +
                   std::to_string(trials) + ", (len(trials), " + std::to_string(trials) +
                   ")\n"
                   "assert all('seconds' in r for r in rs), [r.get('error') for r in rs]\n"
                   "assert {r['worker'] for r in trials} <= {'w1', 'w2'}\n"),
            0);
  // The workers' logs (a line per job, flushed as it is answered): w1 gave up a job unanswered,
  // and w2 answered that very job.
  std::string w1 = read_text(path("w1.log")), w2 = read_text(path("w2.log"));
  size_t at = w1.find("exiting with job ");
  ASSERT_NE(at, std::string::npos) << w1;
  std::string job = w1.substr(at + 17, w1.find(' ', at + 17) - at - 17);
  EXPECT_NE(w2.find("answered job " + job + "\n"), std::string::npos) << job << "\n" << w2;
  EXPECT_EQ(w1.find("answered job " + job + "\n"), std::string::npos) << w1;
  r = ingot("compile " + path("model.onnx") + " -o " + path("t.so") + " --tuning-records " +
            path("r.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("6 kernels (6 tasks) from records"), std::string::npos) << r.out;
}

TEST_F(TuneTest, TheCostModelChoosesCandidatesAndIsSavedForAWarmStart) {
  write_model();
  const std::string common = " --trials 24 --repeat 2 --number 1 --min-repeat-ms 0 --seed 5";
  auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                 " -o " + path("r.jsonl") + common);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m, std::regex("cost model: ([0-9]+) measured candidates, trained ([0-9]+) times")))
      << r.out;
  EXPECT_GE(std::stoi(m[1]), 8);
  EXPECT_GE(std::stoi(m[2]), 1);
  // The saved model is the cost model's JSON; some candidates were the model's picks, and they
  // compile (outputs checked against the closed form).
  EXPECT_EQ(python("import json\n"
                   "doc = json.load(open(d + '/r.jsonl.model.json'))\n"
                   "assert doc['format'] == 'ingot-cost-model' and doc['features'], doc.keys()\n"
                   "rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "origins = {r['origin'] for r in rs}\n"
                   "assert 'model' in origins, origins\n"),
            0);
  r = ingot("compile " + path("model.onnx") + " -o " + path("t.so") + " --tuning-records " +
            path("r.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_closed_form("t.so");
  // A warm start from the saved model; a file that is not a model is refused in one line.
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("warm.jsonl") + common + " --cost-model-file " + path("r.jsonl.model.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("cost model: loaded " + path("r.jsonl.model.json")), std::string::npos)
      << r.out;
  std::ofstream(path("bad.json")) << "[1, 2]";
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("bad.jsonl") + common + " --cost-model-file " + path("bad.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(path("bad.json") + ": not an ingot cost model"), std::string::npos) << r.err;
  // Without the model: random points and mutations, and no model file.
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("none.jsonl") + common + " --cost-model none");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out.find("cost model:"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("none.jsonl.model.json")));
  EXPECT_EQ(python("import json\n"
                   "rs = [json.loads(l) for l in open(d + '/none.jsonl')]\n"
                   "assert 'model' not in {r['origin'] for r in rs}\n"),
            0);
}

// Two 3x3 stride-1 convs (32 -> 32 -> 40 channels at 12x12, bias and Relu): `ingot tune` times the
// model with every such conv direct (its time with the explicit Pad before it), F(2x2, 3x3) and
// F(4x4, 3x3) and records one algorithm per
// conv (rule conv_algorithm, tile 0 / 2 / 4), which compile --tuning-records applies in the graph
// (its dump shows each conv's transforms with that tile, or the direct conv), with outputs still
// the NumPy closed form; the same records compile to the same bytes; a second run on the records
// file keeps the decisions.
TEST_F(TuneTest, ConvAlgorithmsAreChosenInTheModelAndCompileApplies) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "rng = np.random.default_rng(1)\n"
                   "W1 = (rng.standard_normal((32, 32, 3, 3)) / 17).astype(np.float32)\n"
                   "W2 = (rng.standard_normal((40, 32, 3, 3)) / 17).astype(np.float32)\n"
                   "b1 = rng.standard_normal(32).astype(np.float32)\n"
                   "b2 = rng.standard_normal(40).astype(np.float32)\n"
                   "nodes = [helper.make_node('Conv', ['x', 'W1', 'b1'], ['c1'], name='first',\n"
                   "                          kernel_shape=[3, 3], pads=[1, 1, 1, 1]),\n"
                   "         helper.make_node('Relu', ['c1'], ['y1']),\n"
                   "         helper.make_node('Conv', ['y1', 'W2', 'b2'], ['z'], name='second',\n"
                   "                          kernel_shape=[3, 3], pads=[1, 1, 1, 1])]\n"
                   "g = helper.make_graph(nodes, 'two',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 32, 12, 12])],\n"
                   "  [helper.make_tensor_value_info('z', TensorProto.FLOAT, [1, 40, 12, 12])],\n"
                   "  [numpy_helper.from_array(a, n) for a, n in\n"
                   "   ((W1, 'W1'), (W2, 'W2'), (b1, 'b1'), (b2, 'b2'))])\n"
                   "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),\n"
                   "          d + '/model.onnx')\n"
                   "x = rng.standard_normal((1, 32, 12, 12)).astype(np.float32)\n"
                   "np.savez(d + '/x.npz', x=x)\n"
                   "def conv(a, w, b):\n"
                   "  p = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))\n"
                   "  c = np.zeros((1, w.shape[0], 12, 12))\n"
                   "  for r in range(3):\n"
                   "    for t in range(3):\n"
                   "      c += np.einsum('nchw,oc->nohw', p[:, :, r:r + 12, t:t + 12],\n"
                   "                     w[:, :, r, t].astype(np.float64))\n"
                   "  return c + b[None, :, None, None]\n"
                   "y1 = np.maximum(conv(x.astype(np.float64), W1, b1), 0)\n"
                   "np.save(d + '/want.npy', conv(y1, W2, b2))\n"),
            0);
  auto r = ingot("tune " + path("model.onnx") + " -o " + path("r.jsonl") +
                 " --trials 6 --repeat 3 --number 1 --num-threads 1 --report " + path("tune.html"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("conv algorithms chosen in the model: "), std::string::npos) << r.out;
  EXPECT_NE(read_text(path("tune.html")).find("Convolution algorithms chosen in the model"),
            std::string::npos);
  // One decision per conv, each the fastest of the three times the run printed for it.
  EXPECT_EQ(python("import re\n"
                   "rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "ds = {r['kernel']: r for r in rs if r['rule'] == 'conv_algorithm'}\n"
                   "assert sorted(ds) == ['first', 'second'], sorted(ds)\n"
                   "out = open(d + '/stdout').read()\n"
                   "for k, r in ds.items():\n"
                   "  assert r['trace']['tile'] in (0, 2, 4) and r['seconds'] > 0, r\n"
                   "  line = re.search('conv ' + k + r': direct (\\S+) ms \\(with its Pad\\), '\n"
                   "                   r'F\\(2x2\\) (\\S+), '\n"
                   "                   r'F\\(4x4\\) (\\S+) in the model -> (\\w+)', out)\n"
                   "  ms = [float(v) for v in line.groups()[:3]]\n"
                   "  assert line.group(4) == ['direct', 'winograd_f2', 'winograd_f4'][\n"
                   "      ms.index(min(ms))], line.group(0)\n"
                   "  assert [0, 2, 4][ms.index(min(ms))] == r['trace']['tile'], r\n"
                   "open(d + '/tiles.txt', 'w').write(' '.join(\n"
                   "    str(ds[k]['trace']['tile']) for k in ('first', 'second')))\n"),
            0);
  r = ingot("compile " + path("model.onnx") + " -o " + path("t.so") + " --tuning-records " +
            path("r.jsonl") + " --dump graph");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream tiles(read_text(path("tiles.txt")));
  for (const char* conv : {"first", "second"}) {
    int tile = -1;
    tiles >> tile;
    const std::string transform =
        std::string("WinogradOutputTransform(%") + conv + "_winograd_product";
    if (tile == 0) {
      EXPECT_EQ(r.out.find(transform), std::string::npos) << conv << "\n" << r.out;
    } else {
      size_t at = r.out.find(transform);
      ASSERT_NE(at, std::string::npos) << conv << "\n" << r.out;
      EXPECT_NE(r.out.substr(at, r.out.find('\n', at) - at).find("tile=" + std::to_string(tile)),
                std::string::npos)
          << conv;
    }
  }
  expect_closed_form("t.so");
  std::filesystem::create_directories(path("again"));
  auto again = ingot("compile " + path("model.onnx") + " -o " + path("again/t.so") +
                     " --tuning-records " + path("r.jsonl"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(path("t.so")), read_text(path("again/t.so")));
  r = ingot("tune " + path("model.onnx") + " -o " + path("r.jsonl") +
            " --trials 2 --repeat 2 --number 1 --num-threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("conv algorithms: 2 from the records"), std::string::npos) << r.out;
  EXPECT_EQ(python("rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "assert sum(r['rule'] == 'conv_algorithm' for r in rs) == 2\n"),
            0);
}

// A residual pair of 1x1 convs (8 -> 48 with Relu, 48 -> 48, summed) and a 48 -> 32 conv after
// them: two layout classes, {a, b} (joined by the Add) and {c}. `ingot tune` times the model
// with each class's other blocks (AVX2: 8 or 24 besides 16; AVX-512: 48 besides 16) and records
// each class's block for every conv in it (rule conv_layout): the fastest printed, where it beats
// the default by 2%, else the default. compile --tuning-records lays the convs out in those
// blocks (its graph dump shows them), the outputs stay the NumPy closed form, the same records
// give the same bytes, and a second run keeps the decisions.
TEST_F(TuneTest, ConvLayoutsAreChosenInTheModelAndCompileApplies) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "rng = np.random.default_rng(2)\n"
                   "Wa = (rng.standard_normal((48, 8, 1, 1)) / 3).astype(np.float32)\n"
                   "Wb = (rng.standard_normal((48, 48, 1, 1)) / 7).astype(np.float32)\n"
                   "Wc = (rng.standard_normal((32, 48, 1, 1)) / 7).astype(np.float32)\n"
                   "ba = rng.standard_normal(48).astype(np.float32)\n"
                   "nodes = [helper.make_node('Conv', ['x', 'Wa', 'ba'], ['ya'], name='a'),\n"
                   "         helper.make_node('Relu', ['ya'], ['ra']),\n"
                   "         helper.make_node('Conv', ['ra', 'Wb'], ['yb'], name='b'),\n"
                   "         helper.make_node('Add', ['ra', 'yb'], ['s']),\n"
                   "         helper.make_node('Conv', ['s', 'Wc'], ['z'], name='c')]\n"
                   "g = helper.make_graph(nodes, 'residual',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 8, 20, 20])],\n"
                   "  [helper.make_tensor_value_info('z', TensorProto.FLOAT, [1, 32, 20, 20])],\n"
                   "  [numpy_helper.from_array(a, n) for a, n in\n"
                   "   ((Wa, 'Wa'), (Wb, 'Wb'), (Wc, 'Wc'), (ba, 'ba'))])\n"
                   "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),\n"
                   "          d + '/model.onnx')\n"
                   "x = rng.standard_normal((1, 8, 20, 20)).astype(np.float32)\n"
                   "np.savez(d + '/x.npz', x=x)\n"
                   "def conv(a, w):\n"
                   "  return np.einsum('nchw,oc->nohw', a, w[:, :, 0, 0].astype(np.float64))\n"
                   "ra = np.maximum(conv(x.astype(np.float64), Wa) + ba[None, :, None, None], 0)\n"
                   "np.save(d + '/want.npy', conv(ra + conv(ra, Wb), Wc))\n"),
            0);
  auto r = ingot("tune " + path("model.onnx") + " -o " + path("r.jsonl") +
                 " --trials 2 --repeat 3 --number 1 --num-threads 1 --report " + path("tune.html"));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("channel blocks chosen in the model: "), std::string::npos) << r.out;
  EXPECT_NE(read_text(path("tune.html")).find("Channel blocks chosen in the model"),
            std::string::npos);
  // One decision per conv, one block per class: the fastest printed where it beats the default
  // (listed first) by 2%.
  EXPECT_EQ(
      python("import re\n"
             "rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
             "ds = {r['kernel']: r['trace']['block'] for r in rs\n"
             "      if r['rule'] == 'conv_layout'}\n"
             "assert sorted(ds) == ['a', 'b', 'c'], ds\n"
             "assert ds['a'] == ds['b'], ds\n"
             "out = open(d + '/stdout').read()\n"
             "for conv, n in (('a', 2), ('c', 1)):\n"
             "  line = re.search('conv layout of ' + conv + r' \\(' + str(n) +\n"
             "                   r' convs, \\d+ kernels\\): (.*) in the model -> block (\\d+)',\n"
             "                   out)\n"
             "  cells = [(int(b), float(t)) for b, t in\n"
             "           re.findall(r'block (\\d+) ([0-9.]+) ms', line.group(1))]\n"
             "  assert len(cells) >= 2 and len({b for b, _ in cells}) == len(cells), line\n"
             "  best = min(cells, key=lambda c: c[1])\n"
             "  want = best[0] if best[1] <= cells[0][1] * 0.98 else cells[0][0]\n"
             "  assert int(line.group(2)) == want == ds[conv], (line.group(0), ds)\n"
             "  assert all(b % 8 == 0 for b, _ in cells), cells\n"
             "open(d + '/blocks.txt', 'w').write(' '.join(str(ds[k]) for k in 'abc'))\n"),
      0);
  r = ingot("compile " + path("model.onnx") + " -o " + path("t.so") + " --tuning-records " +
            path("r.jsonl") + " --dump graph");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream blocks(read_text(path("blocks.txt")));
  // (Each conv writes its fused value: a the Relu's, b the sum.)
  for (const char* value : {"ra", "s", "z"}) {
    int block = 0;
    blocks >> block;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        r.out, m,
        std::regex("%" + std::string(value) +
                   "_nchwc: float32\\[[0-9,]+\\] = ConvNCHWc\\([^\\n]*block=([0-9]+)")))
        << value << "\n"
        << r.out;
    EXPECT_EQ(std::stoi(m[1]), block) << value;
  }
  expect_closed_form("t.so");
  std::filesystem::create_directories(path("again"));
  auto again = ingot("compile " + path("model.onnx") + " -o " + path("again/t.so") +
                     " --tuning-records " + path("r.jsonl"));
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_text(path("t.so")), read_text(path("again/t.so")));
  r = ingot("tune " + path("model.onnx") + " -o " + path("r.jsonl") +
            " --trials 2 --repeat 2 --number 1 --num-threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("conv layouts: 3 convs' blocks from the records"), std::string::npos)
      << r.out;
  EXPECT_EQ(python("rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "assert sum(r['rule'] == 'conv_layout' for r in rs) == 3\n"),
            0);
  // The decisions name nodes, so they belong to their model (its graph's digest): another model
  // with the same node names (a 12 x 12 input) tuned into the same file gets its own, and
  // decisions of the first model that change its blocks (each conv's other one-vector-multiple
  // block, written into first.jsonl) leave the other model's defaults.
  auto blocks_of = [](const std::string& dump) {
    std::string blocks;
    for (const char* value : {"ra", "s", "z"}) {
      std::smatch m;
      if (std::regex_search(dump, m,
                            std::regex("%" + std::string(value) +
                                       "_nchwc: float32\\[[0-9,]+\\] = "
                                       "ConvNCHWc\\([^\\n]*block=([0-9]+)")))
        blocks += std::string(m[1]) + " ";
    }
    return blocks;
  };
  r = ingot("compile " + path("model.onnx") + " -o " + path("d.so") + " --dump graph");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string defaults = blocks_of(r.out);
  ASSERT_EQ(std::count(defaults.begin(), defaults.end(), ' '), 3) << r.out;
  // AVX2 (z in 16): 8 for all three; AVX-512 (z in 32): 16 for all three.
  const int other_block = defaults.ends_with("16 ") ? 8 : 16;
  ASSERT_EQ(
      python("import onnx\n"
             "m = onnx.load(d + '/model.onnx')\n"
             "for v in (m.graph.input[0], m.graph.output[0]):\n"
             "  for i in (2, 3):\n"
             "    v.type.tensor_type.shape.dim[i].dim_value = 12\n"
             "onnx.save(m, d + '/other.onnx')\n"
             "rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
             "rs = [r for r in rs if r['rule'] == 'conv_layout']\n"
             "for r in rs:\n"
             "  r['trace']['block'] = " +
             std::to_string(other_block) +
             "\n"
             "open(d + '/first.jsonl', 'w').write(''.join(json.dumps(r) + '\\n' for r in rs))\n"),
      0);
  r = ingot("compile " + path("model.onnx") + " -o " + path("first.so") + " --tuning-records " +
            path("first.jsonl") + " --dump graph");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = fmt::format("{0} {0} {0} ", other_block);
  EXPECT_EQ(blocks_of(r.out), want);
  r = ingot("compile " + path("other.onnx") + " -o " + path("other.so") + " --dump graph");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string other_defaults = blocks_of(r.out);
  EXPECT_EQ(other_defaults, defaults);
  r = ingot("compile " + path("other.onnx") + " -o " + path("other.so") + " --tuning-records " +
            path("first.jsonl") + " --dump graph");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(blocks_of(r.out), other_defaults);
  r = ingot("tune " + path("other.onnx") + " -o " + path("r.jsonl") +
            " --trials 2 --repeat 2 --number 1 --num-threads 1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out.find("from the records"), std::string::npos) << r.out;
  EXPECT_EQ(python("rs = [json.loads(l) for l in open(d + '/r.jsonl')]\n"
                   "ds = [r for r in rs if r['rule'] == 'conv_layout']\n"
                   "assert len(ds) == 6 and len({r['model'] for r in ds}) == 2, ds\n"),
            0);
  r = ingot("tune " + path("model.onnx") + " -o " + path("bad.jsonl") + " --conv-layout wide");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--conv-layout: 'wide' is not one of auto, default"), std::string::npos)
      << r.err;
}

TEST_F(TuneTest, BadOptionsAreRefused) {
  write_model();
  auto r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") +
                 " -o " + path("r.jsonl") + " --trials 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--trials: 0 is not a positive count"), std::string::npos) << r.err;
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("r.jsonl") + " --tasks 7");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--tasks: task 7 does not exist (the model has 6 tasks)"), std::string::npos)
      << r.err;
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("r.jsonl") + " --cost-model forest");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--cost-model: 'forest' is not one of xgb, none"), std::string::npos)
      << r.err;
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("r.jsonl") + " --cache-state hot");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--cache-state"), std::string::npos) << r.err;
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx") + " -o " +
            path("r.jsonl") + " --cache-state warm --cache-flush");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--cache-flush"), std::string::npos) << r.err;
  r = ingot("tune --conv-algorithm direct --conv-layout default " + path("model.onnx"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("r.jsonl")));
}

}  // namespace
}  // namespace ingot::testing
