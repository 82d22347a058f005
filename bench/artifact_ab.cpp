// artifact_ab: two artifacts of one model (say, before and after a schedule change) timed in one
// process, alternating call by call, kernel by kernel.
//
// A shared machine drifts by tens of percent over seconds (other guests on the core's sibling
// thread, memory traffic), and separate `ingot run` processes, even alternating, see different
// phases of it. Here both artifacts are loaded once, bound to the same random inputs, and run in
// turn (A B, then B A, ...) for --iters rounds with per-kernel profiling reset before each call;
// each kernel's fastest call and its median on either side are reported, and the whole run's.
// Kernels are matched by name (kernels only one side has are listed, not compared).
//
//   artifact_ab A.so B.so [--iters N] [--threads T] [--min-ms X]
//
// Prints, per kernel above --min-ms (A's fastest), fastest A / B and their ratio, then the sums
// of the fastest calls of the kernels both have, and the whole run's fastest and median.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ingot/runtime.h"

namespace {

struct Side {
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  std::vector<std::vector<double>> kernel_ms;  // per kernel, one sample per call
  std::vector<double> run_ms;
  const IngotArtifact* artifact() const { return ingot_model_artifact(model); }
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "artifact_ab: %s: %s\n", what.c_str(), ingot_last_error());
  std::exit(1);
}

void open_side(const char* path, Side* s) {
  if (ingot_model_load(path, &s->model) != INGOT_OK) die(std::string("cannot load ") + path);
  if (ingot_session_create(s->model, &s->session) != INGOT_OK) die("cannot create a session");
  s->kernel_ms.resize(size_t(s->artifact()->num_kernels));
}

// Random inputs (uniform [0, 1) floats; integer inputs zero), the same bytes for both sides.
void bind_inputs(Side& a, Side& b) {
  const IngotArtifact* art = a.artifact();
  if (art->num_inputs != b.artifact()->num_inputs) die("the artifacts' inputs differ");
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  for (int32_t i = 0; i < art->num_inputs; ++i) {
    const IngotTensorInfo& t = art->inputs[i];
    size_t n = 1;
    for (int32_t d = 0; d < t.ndim; ++d) n *= size_t(t.shape[d]);
    size_t bytes = n * ingot_dtype_bytes(t.dtype);
    std::vector<unsigned char> data(bytes, 0);
    if (t.dtype.code == 2 && t.dtype.bits == 32)
      for (size_t e = 0; e < n; ++e) {
        float v = uni(rng);
        std::memcpy(data.data() + e * 4, &v, 4);
      }
    for (Side* s : {&a, &b})
      if (ingot_session_set_input_copy(s->session, i, data.data(), bytes) != INGOT_OK)
        die(std::string("cannot bind input ") + t.name);
  }
}

void run_once(Side& s) {
  ingot_session_set_profiling(s.session, 1);  // resets the accumulated times
  auto t0 = std::chrono::steady_clock::now();
  if (ingot_session_run(s.session) != INGOT_OK) die("run failed");
  s.run_ms.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  for (int32_t k = 0; k < s.artifact()->num_kernels; ++k) {
    double sec = 0;
    int64_t calls = 0;
    ingot_session_kernel_time(s.session, k, &sec, &calls);
    s.kernel_ms[size_t(k)].push_back(sec * 1e3);
  }
}

double fastest(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}
double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: artifact_ab A.so B.so [--iters N] [--threads T] [--min-ms X]\n");
    return 2;
  }
  int iters = 40, threads = 0;
  double min_ms = 0.1;
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string opt = argv[i];
    if (opt == "--iters") {
      iters = std::max(1, std::atoi(argv[i + 1]));
    } else if (opt == "--threads") {
      threads = std::atoi(argv[i + 1]);
    } else if (opt == "--min-ms") {
      min_ms = std::atof(argv[i + 1]);
    } else {
      std::fprintf(stderr, "artifact_ab: unknown option %s\n", opt.c_str());
      return 2;
    }
  }
  if (threads > 0) ingot_set_num_threads(threads);
  Side a, b;
  open_side(argv[1], &a);
  open_side(argv[2], &b);
  bind_inputs(a, b);
  run_once(a), run_once(b);  // warm-up, not kept
  for (Side* s : {&a, &b}) {
    s->run_ms.clear();
    for (auto& k : s->kernel_ms) k.clear();
  }
  for (int it = 0; it < iters; ++it) {
    if (it % 2 == 0) {
      run_once(a), run_once(b);
    } else {
      run_once(b), run_once(a);
    }
  }
  std::map<std::string, int32_t> in_b;
  for (int32_t k = 0; k < b.artifact()->num_kernels; ++k) in_b[b.artifact()->kernels[k].name] = k;
  std::printf("%d calls each, %d threads; per kernel: fastest A, fastest B (ms), A/B\n", iters,
              ingot_get_num_threads());
  double sum_a = 0, sum_b = 0;
  for (int32_t k = 0; k < a.artifact()->num_kernels; ++k) {
    const char* name = a.artifact()->kernels[k].name;
    double fa = fastest(a.kernel_ms[size_t(k)]);
    auto it = in_b.find(name);
    if (it == in_b.end()) {
      if (fa >= min_ms) std::printf("%-44s %9.4f %9s (A only)\n", name, fa, "-");
      continue;
    }
    double fb = fastest(b.kernel_ms[size_t(it->second)]);
    sum_a += fa, sum_b += fb;
    if (fa >= min_ms) std::printf("%-44s %9.4f %9.4f %6.3f\n", name, fa, fb, fa / fb);
  }
  std::printf("%-44s %9.4f %9.4f %6.3f\n", "sum of the fastest calls (shared kernels)", sum_a,
              sum_b, sum_a / sum_b);
  std::printf("%-44s %9.4f %9.4f %6.3f\n", "whole run, fastest", fastest(a.run_ms),
              fastest(b.run_ms), fastest(a.run_ms) / fastest(b.run_ms));
  std::printf("%-44s %9.4f %9.4f %6.3f\n", "whole run, median", median(a.run_ms), median(b.run_ms),
              median(a.run_ms) / median(b.run_ms));
  ingot_session_free(a.session), ingot_session_free(b.session);
  ingot_model_free(a.model), ingot_model_free(b.model);
  return 0;
}
