// fma_tile_shapes: the register-tile shapes of a direct convolution's micro-kernel, alone, on
// one core (docs/perf.md Table 4g; the blocked conv rule's output-block choice, docs/tune.md).
//
// A tile of MR pixels x V vectors accumulates over K = 576 reduction steps (64 input channels x
// 3x3 taps): per step one input element per pixel broadcast from memory (NCHWc rows, 16
// channels per pixel) and V weight vectors from a packed panel (K x V vectors: 37 KB for one
// AVX-512 vector, in L1; 74-147 KB for more, in L2), MR x V FMAs. One-vector tiles need about a
// load per FMA; tiles of several vectors (several output-channel blocks) share each broadcast.
// The kernels carry __attribute__((target(...))) and run only after a __builtin_cpu_supports
// check, as in fma_peak. The gemm512 shapes are the matmul's micro-kernel: A and B packed
// panels, 256 steps deep, in L1. Counter GFLOPS: FLOP/s per CPU-second of the thread (1e9); the
// summary on stderr lists each shape's best.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

constexpr int kSteps = 576;         // reduction steps per tile
constexpr int kPixelStride = 16;    // floats per pixel of the NCHWc input (one 16-channel block)
constexpr int kBlockStride = 4096;  // floats between input channel blocks (a 16 x 16 x 16 map)

std::mutex g_mu;
std::map<std::string, double> g_best;

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// The input element of pixel r at step k: channel block k / 16, channel k % 16.
inline const float* input_at(const float* x, int k, int r) {
  return x + (k / 16) * kBlockStride + r * kPixelStride + k % 16;
}

// The matmul's micro-kernel (schedule/rules/matmul.h): A packed in kRows-row panels, Ap[k, r],
// one broadcast per row and step; B a packed panel Bp[k, kVecs x 16], kGemmSteps deep (256, the
// default K slice: 32 KB for two vectors, in L1 beside A's 8-14 KB).
constexpr int kGemmSteps = 256;

// An AVX-512 tile: the conv's (A the NCHWc input, B one K x 16 panel per vector, w_stride
// apart) or, kPacked, the matmul's (packed A and B panels, kGemmSteps deep).
template <int kRows, int kVecs, bool kPacked = false>
__attribute__((target("avx512f,fma"), noinline)) void tile_avx512(const float* x, const float* w,
                                                                  float* y, long w_stride) {
  constexpr int kDepth = kPacked ? kGemmSteps : kSteps;
  __m512 acc[kRows][kVecs];
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_loadu_ps(y + (v * 16 + r) * 16);
  for (int k = 0; k < kDepth; ++k) {
    __m512 b[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v)
      b[v] = _mm512_loadu_ps(kPacked ? w + (k * kVecs + v) * 16 : w + v * w_stride + k * 16);
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
      __m512 a = _mm512_set1_ps(kPacked ? x[k * kRows + r] : *input_at(x, k, r));
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) _mm512_storeu_ps(y + (v * 16 + r) * 16, acc[r][v]);
}

template <int kRows, int kVecs>
__attribute__((target("avx2,fma"), noinline)) void tile_avx2(const float* x, const float* w,
                                                             float* y, long w_stride) {
  __m256 acc[kRows][kVecs];
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_loadu_ps(y + (v * 16 + r) * 8);
  for (int k = 0; k < kSteps; ++k) {
    __m256 b[kVecs];
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) b[v] = _mm256_loadu_ps(w + v * w_stride + k * 8);
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
      __m256 a = _mm256_set1_ps(*input_at(x, k, r));
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_fmadd_ps(a, b[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < kVecs; ++v) _mm256_storeu_ps(y + (v * 16 + r) * 8, acc[r][v]);
}

// One tile shape: kLanes floats per vector; the kernel is run over 8 neighbouring input origins
// so the broadcasts do not all hit one line.
template <int kRows, int kVecs, int kLanes,
          void (*Kernel)(const float*, const float*, float*, long), int kDepth = kSteps>
void BM_tile(benchmark::State& state, bool supported, const char* isa) {
  if (!supported) {
    state.SkipWithError((std::string("CPU lacks ") + isa).c_str());
    return;
  }
  std::vector<float> x(size_t(kSteps / 16 * kBlockStride + 64), 0.5f);
  long w_stride = long(kSteps) * kLanes;
  std::vector<float> w(size_t(kVecs * w_stride), 0.001f), y(size_t(4 * 16 * 16 * 16), 0.0f);
  double c0 = thread_cpu_s();
  long tiles = 0;
  for (auto _ : state) {
    for (int o = 0; o < 8; ++o) Kernel(x.data() + o, w.data(), y.data(), w_stride);
    tiles += 8;
    benchmark::ClobberMemory();
  }
  double flops = 2.0 * kRows * kVecs * kLanes * kDepth * double(tiles);
  double rate = flops / std::max(thread_cpu_s() - c0, 1e-9) / 1e9;
  state.counters["GFLOPS"] = rate;
  std::string name = std::string(isa) + " " + std::to_string(kRows) + "x" + std::to_string(kVecs);
  std::lock_guard<std::mutex> lock(g_mu);
  g_best[name] = std::max(g_best[name], rate);
}

#define INGOT_TILE512(R, V)                                                                       \
  benchmark::RegisterBenchmark("avx512/" #R "x" #V, BM_tile<R, V, 16, tile_avx512<R, V>>, avx512, \
                               "avx512")
#define INGOT_GEMM512(R, V)                                                                    \
  benchmark::RegisterBenchmark("gemm512/" #R "x" #V,                                           \
                               BM_tile<R, V, 16, tile_avx512<R, V, true>, kGemmSteps>, avx512, \
                               "gemm512")
#define INGOT_TILE256(R, V) \
  benchmark::RegisterBenchmark("avx2/" #R "x" #V, BM_tile<R, V, 8, tile_avx2<R, V>>, avx2, "avx2")

}  // namespace

int main(int argc, char** argv) {
  __builtin_cpu_init();
  bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  // AVX-512 (32 zmm): one vector up to 14 pixels, two up to 14, three up to 9, four up to 6.
  INGOT_TILE512(8, 1);
  INGOT_TILE512(12, 1);
  INGOT_TILE512(14, 1);
  INGOT_TILE512(7, 2);
  INGOT_TILE512(8, 2);
  INGOT_TILE512(12, 2);
  INGOT_TILE512(14, 2);
  INGOT_TILE512(8, 3);
  INGOT_TILE512(9, 3);
  INGOT_TILE512(6, 4);
  // The matmul's tiles (rows x vectors) over packed panels in L1.
  INGOT_GEMM512(8, 2);
  INGOT_GEMM512(12, 2);
  INGOT_GEMM512(14, 2);
  INGOT_GEMM512(8, 3);
  INGOT_GEMM512(9, 3);
  INGOT_GEMM512(6, 4);
  // AVX2 (16 ymm): one vector up to 12 pixels, two up to 6, three up to 4.
  INGOT_TILE256(8, 1);
  INGOT_TILE256(12, 1);
  INGOT_TILE256(6, 2);
  INGOT_TILE256(4, 3);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::fprintf(stderr, "best GFLOP/s per CPU-second (pixels x vectors):\n");
  for (const auto& [name, rate] : g_best)
    std::fprintf(stderr, "  %-14s %7.1f\n", name.c_str(), rate);
  return 0;
}
