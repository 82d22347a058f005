// fma_peak: the machine's roofline numbers for docs/perf.md (DESIGN.md section 11).
//
// Measures the FP32 FMA peak in GFLOP/s with independent accumulator chains of packed FMAs
// (AVX-512 zmm and AVX2 ymm, 1 and 2 threads, 8..16 chains so the chain count covers
// FMA latency x FMA throughput), and the memory bandwidth in GB/s with a STREAM-like triad
// (a[i] = b[i] + s * c[i]) and a read-only sum over arrays several times the size of the L3.
//
// The kernels carry __attribute__((target(...))) and are only called after a
// __builtin_cpu_supports check, so the binary still runs (and skips them) on older CPUs.
// Counters: GFLOPS (FLOP/s / 1e9, all threads per wall-clock second) and GBps (bytes/s / 1e9,
// STREAM convention: 3 x 4 bytes per triad element, write-allocate traffic not counted); and
// core_GFLOPS / core_GBps, one thread's rate per CPU-second of that thread, which stays near the
// hardware number on a shared machine that deschedules us (what bench/model_bench.py uses).
// After the run, a summary of the best rates and the derived per-core peak goes to stderr, so
// `--benchmark_format=json` on stdout stays parseable (bench/model_bench.py reads it).
//
// Array size: INGOT_STREAM_MIB (total MiB over the three triad arrays, default 1536).
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace {

// Inner loop trip count per benchmark iteration: long enough that loop overhead and the
// horizontal sum at the end vanish, short enough for Google Benchmark to pick iteration counts.
constexpr int kInner = 1 << 14;

// Best rates seen per benchmark name (max over Google Benchmark's calls), for the summary.
std::mutex g_best_mu;
std::map<std::string, double> g_best;

void record_best(const std::string& name, double rate) {
  std::lock_guard<std::mutex> lock(g_best_mu);
  double& b = g_best[name];
  b = std::max(b, rate);
}

// CPU time of the calling thread: a rate per CPU-second is what one core delivers while it runs
// this thread, which stays close to the hardware peak even when a busy machine deschedules us.
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// --- FMA peak -----------------------------------------------------------------------------
// acc[j] = acc[j] * a + b with a just below 1: values stay finite and normal forever, and the
// compiler cannot fold or reassociate the chains (no fast-math).

template <int kChains>
__attribute__((target("avx512f,fma"), noinline)) float fma_chains_avx512(long n) {
  __m512 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm512_set1_ps(1.0f + 0.01f * j);
  const __m512 a = _mm512_set1_ps(0.999999f);
  const __m512 b = _mm512_set1_ps(1e-6f);
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains; ++j) acc[j] = _mm512_fmadd_ps(acc[j], a, b);
  }
  __m512 s = acc[0];
  for (int j = 1; j < kChains; ++j) s = _mm512_add_ps(s, acc[j]);
  // A plain store and loop, not _mm512_reduce_add_ps (GCC 12 warns inside that intrinsic).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float r = 0;
  for (float v : lanes) r += v;
  return r;
}

template <int kChains>
__attribute__((target("avx2,fma"), noinline)) float fma_chains_avx2(long n) {
  __m256 acc[kChains];
  for (int j = 0; j < kChains; ++j) acc[j] = _mm256_set1_ps(1.0f + 0.01f * j);
  const __m256 a = _mm256_set1_ps(0.999999f);
  const __m256 b = _mm256_set1_ps(1e-6f);
  for (long i = 0; i < n; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kChains; ++j) acc[j] = _mm256_fmadd_ps(acc[j], a, b);
  }
  __m256 s = acc[0];
  for (int j = 1; j < kChains; ++j) s = _mm256_add_ps(s, acc[j]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float r = 0;
  for (float v : lanes) r += v;
  return r;
}

// One benchmark body for both ISAs: `kLanes` FP32 lanes per vector, 2 FLOPs per lane per FMA.
// `supported` comes from __builtin_cpu_supports at registration; `isa` names it in the summary.
template <int kChains, int kLanes, float (*Kernel)(long)>
void BM_fma(benchmark::State& state, bool supported, const char* isa) {
  if (!supported) {
    state.SkipWithError((std::string("CPU lacks ") + isa).c_str());
    return;
  }
  double t0 = now_s();
  double c0 = thread_cpu_s();
  for (auto _ : state) {
    // An opaque trip count: GCC infers the kernel is `const` and would hoist a call with a
    // constant argument out of the loop.
    long n = kInner;
    benchmark::DoNotOptimize(n);
    benchmark::DoNotOptimize(Kernel(n));
  }
  double cpu = thread_cpu_s() - c0;
  double wall = now_s() - t0;
  const double flops = 2.0 * kLanes * kChains * kInner * static_cast<double>(state.iterations());
  // GFLOPS: all threads together per wall-clock second (the machine's rate at this thread count).
  state.counters["GFLOPS"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsRate);
  // core_GFLOPS: per thread per CPU-second, averaged over threads (one core's rate).
  const double core = cpu > 0 ? flops / cpu * 1e-9 : 0.0;
  state.counters["core_GFLOPS"] = benchmark::Counter(core, benchmark::Counter::kAvgThreads);
  const std::string key = std::string(isa) + "/threads:" + std::to_string(state.threads());
  record_best(key + " core/cpu-s", core);
  if (state.thread_index() == 0 && wall > 0)
    record_best(key, flops * state.threads() / wall * 1e-9);
}

// --- memory bandwidth ----------------------------------------------------------------------

struct StreamArrays {
  size_t n = 0;  // floats per array
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
};

size_t stream_total_mib() {
  const char* env = std::getenv("INGOT_STREAM_MIB");
  long v = env ? std::atol(env) : 0;
  return v > 0 ? static_cast<size_t>(v) : 1536;
}

StreamArrays& stream_arrays() {
  static StreamArrays s;
  static std::once_flag once;
  std::call_once(once, [] {
    s.n = stream_total_mib() * (size_t{1} << 20) / 3 / sizeof(float);
    s.n -= s.n % 4096;  // whole pages per array, and an easy split between threads
    const size_t bytes = s.n * sizeof(float);
    s.a = static_cast<float*>(std::aligned_alloc(64, bytes));
    s.b = static_cast<float*>(std::aligned_alloc(64, bytes));
    s.c = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!s.a || !s.b || !s.c) {
      std::fprintf(stderr, "fma_peak: cannot allocate 3 x %zu MiB\n", bytes >> 20);
      std::exit(1);
    }
    // Touch every page once so page faults are not timed.
    for (size_t i = 0; i < s.n; ++i) {
      s.a[i] = 0.0f;
      s.b[i] = 1.0f;
      s.c[i] = 2.0f;
    }
  });
  return s;
}

// This thread's [begin, end) slice of the arrays.
std::pair<size_t, size_t> slice(const benchmark::State& state, size_t n) {
  size_t per = n / state.threads();
  size_t begin = per * state.thread_index();
  return {begin, state.thread_index() + 1 == state.threads() ? n : begin + per};
}

// core_GBps: this thread's bytes per CPU-second, averaged over threads. On a busy machine it
// shows what a core streams while it runs; the wall-clock GBps is the machine's number.
void add_core_rate(benchmark::State& state, const char* kind, double bytes, double cpu) {
  const double core = cpu > 0 ? bytes / cpu * 1e-9 : 0.0;
  state.counters["core_GBps"] = benchmark::Counter(core, benchmark::Counter::kAvgThreads);
  record_best(std::string(kind) + "/threads:" + std::to_string(state.threads()) + " core/cpu-s",
              core);
}

void BM_stream_triad(benchmark::State& state) {
  StreamArrays& s = stream_arrays();
  auto [lo, hi] = slice(state, s.n);
  float* __restrict a = s.a;
  const float* __restrict b = s.b;
  const float* __restrict c = s.c;
  const float scalar = 3.0f;
  double t0 = now_s();
  double c0 = thread_cpu_s();
  for (auto _ : state) {
    for (size_t i = lo; i < hi; ++i) a[i] = b[i] + scalar * c[i];
    benchmark::ClobberMemory();
  }
  double cpu = thread_cpu_s() - c0;
  double wall = now_s() - t0;
  const double bytes = 3.0 * sizeof(float) * static_cast<double>(hi - lo) * state.iterations();
  state.counters["GBps"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsRate);
  state.counters["array_MiB"] = benchmark::Counter(static_cast<double>(s.n * sizeof(float) >> 20),
                                                   benchmark::Counter::kAvgThreads);
  add_core_rate(state, "triad", bytes, cpu);
  if (state.thread_index() == 0 && wall > 0) {
    record_best("triad/threads:" + std::to_string(state.threads()),
                bytes * state.threads() / wall * 1e-9);
  }
}

void BM_stream_read(benchmark::State& state) {
  StreamArrays& s = stream_arrays();
  auto [lo, hi] = slice(state, s.n);
  const float* __restrict b = s.b;
  double t0 = now_s();
  double c0 = thread_cpu_s();
  for (auto _ : state) {
    // Four SSE partial sums (x86-64 baseline): GCC will not vectorize a float reduction
    // without -ffast-math, and one scalar chain would be latency bound, not memory bound.
    __m128 p0 = _mm_setzero_ps(), p1 = p0, p2 = p0, p3 = p0;
    size_t i = lo;
    for (; i + 16 <= hi; i += 16) {
      p0 = _mm_add_ps(p0, _mm_load_ps(b + i));
      p1 = _mm_add_ps(p1, _mm_load_ps(b + i + 4));
      p2 = _mm_add_ps(p2, _mm_load_ps(b + i + 8));
      p3 = _mm_add_ps(p3, _mm_load_ps(b + i + 12));
    }
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, _mm_add_ps(_mm_add_ps(p0, p1), _mm_add_ps(p2, p3)));
    float sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; i < hi; ++i) sum += b[i];
    benchmark::DoNotOptimize(sum);
  }
  double cpu = thread_cpu_s() - c0;
  double wall = now_s() - t0;
  const double bytes = sizeof(float) * static_cast<double>(hi - lo) * state.iterations();
  state.counters["GBps"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsRate);
  add_core_rate(state, "read", bytes, cpu);
  if (state.thread_index() == 0 && wall > 0) {
    record_best("read/threads:" + std::to_string(state.threads()),
                bytes * state.threads() / wall * 1e-9);
  }
}

// Registered by hand rather than with BENCHMARK_TEMPLATE, which cannot pass the ISA name.
template <int kChains>
void register_fma() {
  const bool cpu_has_fma = __builtin_cpu_supports("fma");
  const bool cpu_has_avx512f = cpu_has_fma && __builtin_cpu_supports("avx512f");
  const bool cpu_has_avx2 = cpu_has_fma && __builtin_cpu_supports("avx2");
  benchmark::RegisterBenchmark(("BM_fma_avx512/chains:" + std::to_string(kChains)).c_str(),
                               BM_fma<kChains, 16, fma_chains_avx512<kChains>>, cpu_has_avx512f,
                               "avx512f")
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
  benchmark::RegisterBenchmark(("BM_fma_avx2/chains:" + std::to_string(kChains)).c_str(),
                               BM_fma<kChains, 8, fma_chains_avx2<kChains>>, cpu_has_avx2, "avx2")
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime();
}

void register_all() {
  register_fma<8>();
  register_fma<12>();
  register_fma<16>();
  benchmark::RegisterBenchmark("BM_stream_triad", BM_stream_triad)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_stream_read", BM_stream_read)
      ->Threads(1)
      ->Threads(2)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

double best(const std::string& key) {
  auto it = g_best.find(key);
  return it == g_best.end() ? 0.0 : it->second;
}

void print_summary() {
  if (g_best.empty()) return;
  std::fprintf(stderr, "\nfma_peak summary (best over Google Benchmark's calls):\n");
  for (const auto& [k, v] : g_best) {
    const bool mem = k.rfind("triad", 0) == 0 || k.rfind("read", 0) == 0;
    std::fprintf(stderr, "  %-30s %9.1f %s\n", k.c_str(), v, mem ? "GB/s" : "GFLOP/s");
  }
  // Wall-clock rates are the truth on a quiet machine; per-CPU-second rates survive a busy one.
  double p512 = best("avx512f/threads:1"), p256 = best("avx2/threads:1");
  double c512 = best("avx512f/threads:1 core/cpu-s"), c256 = best("avx2/threads:1 core/cpu-s");
  if (p512 > 0)
    std::fprintf(stderr, "  per-core FP32 peak (AVX-512): %.1f GFLOP/s wall, %.1f per CPU-second\n",
                 p512, c512);
  if (p256 > 0)
    std::fprintf(stderr, "  per-core FP32 peak (AVX2):    %.1f GFLOP/s wall, %.1f per CPU-second\n",
                 p256, c256);
  if (c512 > 0 && c256 > 0) {
    // Every AVX2 core since Haswell issues two ymm FMAs per cycle (32 FLOP/cycle). If zmm doubles
    // that, the core has two 512-bit FMA units (64 FLOP/cycle); if not, one.
    double ratio = c512 / c256;
    int units = ratio > 1.5 ? 2 : 1;
    std::fprintf(stderr,
                 "  AVX-512 / AVX2 = %.2f => %d 512-bit FMA unit(s), %d FLOP/cycle, "
                 "so the AVX-512 clock is about %.2f GHz (AVX2: %.2f GHz)\n",
                 ratio, units, 32 * units, c512 / (32 * units), c256 / 32);
  }
  double p2 = best("avx512f/threads:2");
  if (p512 > 0 && p2 > 0)
    std::fprintf(stderr, "  2-thread AVX-512: %.1f GFLOP/s wall, %.2fx one thread\n", p2,
                 p2 / p512);
  const double bw1 = best("triad/threads:1"), bw2 = best("triad/threads:2");
  if (bw1 > 0 || bw2 > 0)
    std::fprintf(stderr,
                 "  memory bandwidth (triad): %.1f GB/s at 1 thread, %.1f at 2 (wall); "
                 "%.1f per CPU-second of one thread\n",
                 bw1, bw2, best("triad/threads:1 core/cpu-s"));
  const double bw = std::max(bw1, bw2), peak = std::max(p512, p2);
  if (bw > 0 && peak > 0)
    std::fprintf(stderr, "  machine balance: %.1f FLOP/byte (best FLOP/s over best triad GB/s)\n",
                 peak / bw);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("l3_cache_bytes", std::to_string(sysconf(_SC_LEVEL3_CACHE_SIZE)));
  benchmark::AddCustomContext("stream_total_mib", std::to_string(stream_total_mib()));
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  print_summary();
  return 0;
}
