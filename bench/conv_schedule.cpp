// conv_schedule: ResNet-50's 3x3 layers (56x56x64, 28x28x128, 14x14x256, 7x7x512, stride 1,
// pad 1) and a 1x1 (56x56, 64 -> 256) as one-Conv graphs through the compile path users take
// (lower with the default rules -> schedule -> LLVM -> .so) and the runtime, at 1 and 2 threads.
//
// Counters: GFLOPS / pct_peak for the whole op (conversion to blocks + padding + blocked
// convolution + copy back to NCHW; in a model the layout pass keeps chains blocked), conv_GFLOPS /
// conv_pct_peak for the blocked convolution kernel alone (runtime profiling), cpu_GFLOPS per
// CPU-second of the process (one core's rate, meaningful when the shared machine deschedules us).
// pct_peak is against threads x the per-core FMA peak, INGOT_PEAK_GFLOPS (default 173, fma_peak on
// the dev machine).
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "codegen/target.h"
#include "graph/graph.h"
#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "ingot/abi.h"
#include "ingot/runtime.h"
#include "lower/lower_graph.h"
#include "schedule/rules/default_rules.h"

namespace {

using namespace ingot;

struct Layer {
  int64_t c, oc, hw, k;
};
const Layer kLayers[] = {
    {64, 64, 56, 3}, {128, 128, 28, 3}, {256, 256, 14, 3}, {512, 512, 7, 3}, {64, 256, 56, 1}};

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

graph::TensorType f32_type(std::vector<int64_t> shape) {
  graph::TensorType t{graph::DType::kF32, {}};
  for (int64_t d : shape) t.shape.push_back(graph::Dim::fixed(d));
  return t;
}

// One Conv layer compiled to a temp .so and loaded.
struct Compiled {
  std::string path;
  IngotModel* model = nullptr;
  int conv_kernel = -1;
  double flops = 0;
  explicit Compiled(const Layer& l) {
    graph::Graph g;
    g.name = "conv";
    graph::Value* x = g.add_value("x", f32_type({1, l.c, l.hw, l.hw}));
    g.inputs = {x};
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-0.1f, 0.1f);
    std::vector<float> w(size_t(l.oc * l.c * l.k * l.k));
    for (float& v : w) v = d(rng);
    std::vector<uint8_t> bytes(w.size() * 4);
    std::memcpy(bytes.data(), w.data(), bytes.size());
    graph::Value* wv = g.add_constant(
        "w", std::make_shared<graph::Tensor>(graph::DType::kF32,
                                             std::vector<int64_t>{l.oc, l.c, l.k, l.k}, bytes));
    graph::Attrs a;
    a.set("kernel_shape", std::vector<int64_t>{l.k, l.k});
    a.set("pads", std::vector<int64_t>(4, l.k / 2));
    g.outputs = {g.add_node(ops::OpKind::Conv, "conv", {x, wv}, {"y"}, a)->outputs[0]};
    graph::infer_types(g);
    codegen::Target target = codegen::Target::host();
    // Blocked as the compiler blocks it (graph pass layout_nchwc): the conv a ConvNCHWc between
    // layout conversions and an explicit Pad.
    graph::convert_layout_nchwc(g, vector_channel_blocks(target.vector_bits));
    graph::infer_types(g);
    tir::IRModule mod = lower::lower_graph(g, {.cpu_schedules = true});
    schedule::apply_default_schedules(mod, target.vector_bits);
    for (size_t k = 0; k < mod.kernels.size(); ++k)
      if (mod.kernels[k].name == "conv_ConvNCHWc") conv_kernel = int(k);
    flops = 2.0 * double(l.oc * l.c * l.k * l.k * l.hw * l.hw);
    path = (std::filesystem::temp_directory_path() /
            ("ingot_conv_" + std::to_string(::getpid()) + "_" + std::to_string(l.c) + "_" +
             std::to_string(l.k) + ".so"))
               .string();
    codegen::build_shared_library(mod, target, path);
    if (ingot_model_load(path.c_str(), &model) != 0) {
      std::fprintf(stderr, "load: %s\n", ingot_last_error());
      std::abort();
    }
  }
  ~Compiled() {
    ingot_model_free(model);
    std::filesystem::remove(path);
  }
};

Compiled& compiled(size_t layer) {
  static std::vector<std::unique_ptr<Compiled>> cache(std::size(kLayers));
  if (!cache[layer]) cache[layer] = std::make_unique<Compiled>(kLayers[layer]);
  return *cache[layer];
}

void BM_Conv(benchmark::State& state) {
  size_t layer = size_t(state.range(0));
  int threads = int(state.range(1));
  const Layer& l = kLayers[layer];
  Compiled& c = compiled(layer);
  ingot_set_num_threads(threads);
  IngotSession* sess = nullptr;
  if (ingot_session_create(c.model, &sess) != 0) {
    state.SkipWithError(ingot_last_error());
    return;
  }
  std::vector<float> x(size_t(l.c * l.hw * l.hw), 0.5f);
  ingot_session_set_input_copy(sess, 0, x.data(), x.size() * 4);
  ingot_session_run(sess);  // warm up: pages, pool threads
  ingot_session_set_profiling(sess, 1);
  double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    if (ingot_session_run(sess) != 0) state.SkipWithError(ingot_last_error());
  }
  double cpu = process_cpu_seconds() - cpu0;
  double conv_seconds = 0;
  int64_t calls = 0;
  ingot_session_kernel_time(sess, c.conv_kernel, &conv_seconds, &calls);
  double flops = c.flops * double(state.iterations());
  double peak = double(
      std::atoll(std::getenv("INGOT_PEAK_GFLOPS") ? std::getenv("INGOT_PEAK_GFLOPS") : "173"));
  state.SetLabel(std::to_string(l.hw) + "x" + std::to_string(l.hw) + "x" + std::to_string(l.c) +
                 "->" + std::to_string(l.oc) + " " + std::to_string(l.k) + "x" +
                 std::to_string(l.k));
  state.counters["GFLOPS"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  state.counters["pct_peak"] =
      benchmark::Counter(flops / 1e9 / (threads * peak) * 100, benchmark::Counter::kIsRate);
  state.counters["conv_GFLOPS"] = flops / 1e9 / conv_seconds;
  state.counters["conv_pct_peak"] = flops / 1e9 / conv_seconds / (threads * peak) * 100;
  state.counters["cpu_GFLOPS"] = flops / 1e9 / cpu;
  ingot_session_free(sess);
}
BENCHMARK(BM_Conv)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {1, 2}})
    ->ArgNames({"layer", "threads"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
