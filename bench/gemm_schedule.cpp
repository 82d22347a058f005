// gemm_schedule: the default matmul schedule (schedule/rules/matmul.h) on a 1024^3 FP32 matmul
// with B prepacked, compiled through build_shared_library and run through the runtime
// (ingot_session_run, its thread pool at 1 and 2 threads).
//
// Counters: GFLOPS (per wall-clock second, all threads), pct_peak (GFLOPS / (threads x the
// per-core FMA peak), INGOT_PEAK_GFLOPS, default 173 as fma_peak measured on the dev machine),
// cpu_GFLOPS (per CPU-second of the process, i.e. one core's rate, which stays meaningful when
// the shared machine deschedules us) and cpu_pct_peak (cpu_GFLOPS / the per-core peak).
//
// Environment: INGOT_GEMM_MC / _NC / _KC override the rule's block sizes (for tuning them),
// INGOT_GEMM_COLUMN_PARALLEL=0 turns off the rule's column-parallel order for M <= MC,
// INGOT_GEMM_PACK_A=0 reads A unpacked (default: the kernel packs A in MR-row panels into a
// workspace scratch, as compile does),
// INGOT_GEMM_SIZE the matrix size (default 1024); INGOT_GEMM_M / _N / _K override one dimension
// (e.g. M=128 K=768 N=3072, a BERT-base FFN layer at sequence length 128).
#include <benchmark/benchmark.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "codegen/target.h"
#include "common/packed_matmul.h"  // the packed block form (a test fixture)
#include "ingot/runtime.h"
#include "schedule/rules/matmul.h"
#include "tir/op.h"

namespace {

using namespace ingot;

int64_t env_int(const char* name, int64_t def) {
  const char* v = std::getenv(name);
  return v ? std::atoll(v) : def;
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// The scheduled matmul built once per process into a temp .so and loaded by the runtime.
struct Gemm {
  int64_t n = env_int("INGOT_GEMM_SIZE", 1024);
  int64_t M = env_int("INGOT_GEMM_M", n), N = env_int("INGOT_GEMM_N", n);
  int64_t K = env_int("INGOT_GEMM_K", n);
  std::string path;
  int mr = 0;  // > 0: the kernel packs A in MR-row panels
  IngotModel* model = nullptr;
  Gemm() {
    codegen::Target target = codegen::Target::host();
    schedule::MatmulConfig cfg;
    cfg.vector_bits = target.vector_bits;
    cfg.mc = env_int("INGOT_GEMM_MC", cfg.mc);
    cfg.nc = env_int("INGOT_GEMM_NC", cfg.nc);
    cfg.kc = env_int("INGOT_GEMM_KC", cfg.kc);
    cfg.column_parallel = env_int("INGOT_GEMM_COLUMN_PARALLEL", 1) != 0;
    int nr = schedule::matmul_panel_width(cfg);
    mr = env_int("INGOT_GEMM_PACK_A", 1) ? schedule::matmul_row_tile(cfg) : 0;
    schedule::PackedMatmul m = schedule::make_packed_matmul(M, N, K, nr, 0, false, mr);
    schedule::Schedule s(m.func);
    schedule::schedule_packed_matmul(s, "C", cfg);
    tir::IRModule mod;
    mod.model_name = "gemm";
    tir::PrimFunc f = s.func();
    f.name = "gemm_kernel";
    mod.kernels.push_back(f);
    auto desc = [](const tir::Buffer& b) {
      tir::TensorDesc d{b->name, b->dtype, {}, {}};
      for (const tir::Expr& e : b->shape) {
        int64_t v = 0;
        tir::is_const_int(e, &v);
        d.shape.push_back(v);
        d.dim_names.push_back("");
      }
      return d;
    };
    mod.inputs = {desc(m.A), desc(m.Bp)};
    mod.outputs = {desc(m.C)};
    // Params A, [Ap,] Bp, C; the A panels live in the workspace.
    std::vector<tir::ArgRef> args = {{tir::ArgRef::kInput, 0}};
    if (mr > 0) {
      args.push_back({tir::ArgRef::kWorkspace, 0});
      mod.workspace_bytes = uint64_t((M + mr - 1) / mr * mr * K * 4 + 63) / 64 * 64;
    }
    args.push_back({tir::ArgRef::kInput, 1});
    args.push_back({tir::ArgRef::kOutput, 0});
    mod.entry.push_back({0, args});
    path = (std::filesystem::temp_directory_path() /
            ("ingot_gemm_" + std::to_string(::getpid()) + ".so"))
               .string();
    codegen::build_shared_library(mod, target, path);
    if (ingot_model_load(path.c_str(), &model) != 0) {
      std::fprintf(stderr, "load: %s\n", ingot_last_error());
      std::abort();
    }
  }
  ~Gemm() {
    ingot_model_free(model);
    std::filesystem::remove(path);
  }
};

Gemm& gemm() {
  static Gemm g;
  return g;
}

void BM_GemmScheduled(benchmark::State& state) {
  Gemm& g = gemm();
  int threads = int(state.range(0));
  ingot_set_num_threads(threads);
  IngotSession* sess = nullptr;
  if (ingot_session_create(g.model, &sess) != 0) {
    state.SkipWithError(ingot_last_error());
    return;
  }
  int64_t M = g.M, N = g.N, K = g.K;
  int nr = int(ingot_model_input_info(g.model, 1)->shape[2]);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> a(size_t(M * K)), b(size_t(K * N));
  for (float& x : a) x = d(rng);
  for (float& x : b) x = d(rng);
  std::vector<float> bp = schedule::pack_b_panels(b.data(), K, N, nr);
  ingot_session_set_input_copy(sess, 0, a.data(), a.size() * 4);
  ingot_session_set_input_copy(sess, 1, bp.data(), bp.size() * 4);
  ingot_session_run(sess);  // warm up: pages, pool threads
  double cpu0 = process_cpu_seconds();
  for (auto _ : state) {
    if (ingot_session_run(sess) != 0) state.SkipWithError(ingot_last_error());
  }
  double cpu = process_cpu_seconds() - cpu0;
  double flops = 2.0 * double(M) * double(N) * double(K) * double(state.iterations());
  double peak = double(env_int("INGOT_PEAK_GFLOPS", 173));
  state.counters["GFLOPS"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  state.counters["pct_peak"] =
      benchmark::Counter(flops / 1e9 / (threads * peak) * 100, benchmark::Counter::kIsRate);
  state.counters["cpu_GFLOPS"] = flops / 1e9 / cpu;
  state.counters["cpu_pct_peak"] = flops / 1e9 / cpu / peak * 100;
  ingot_session_free(sess);
}
BENCHMARK(BM_GemmScheduled)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
