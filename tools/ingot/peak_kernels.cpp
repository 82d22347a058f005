// Per-ISA floating-point peak kernels (see peak_kernels.h). Each function is compiled for its ISA
// with a target attribute and only called after the runtime's CPUID check says the CPU has it.
// 12 (16 for AVX-512) independent accumulators cover the FMA latency times the FMA ports of
// current x86 and Arm cores.
#include "tools/ingot/peak_kernels.h"

#include "ingot/runtime.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace ingot::cli {
namespace {

volatile float g_sink;

#if defined(__x86_64__)
__attribute__((target("sse2"))) double run_sse2(int64_t iterations) {
  __m128 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm_set1_ps(0.001f * float(j));
  const __m128 m = _mm_set1_ps(0.9999f), a = _mm_set1_ps(1e-4f);
  for (int64_t i = 0; i < iterations; ++i)
    for (int j = 0; j < 12; ++j) acc[j] = _mm_add_ps(_mm_mul_ps(acc[j], m), a);
  __m128 s = acc[0];
  for (int j = 1; j < 12; ++j) s = _mm_add_ps(s, acc[j]);
  g_sink = _mm_cvtss_f32(s);
  return 2.0 * 4 * 12 * double(iterations);
}

__attribute__((target("avx2,fma"))) double run_avx2(int64_t iterations) {
  __m256 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm256_set1_ps(0.001f * float(j));
  const __m256 m = _mm256_set1_ps(0.9999f), a = _mm256_set1_ps(1e-4f);
  for (int64_t i = 0; i < iterations; ++i)
    for (int j = 0; j < 12; ++j) acc[j] = _mm256_fmadd_ps(acc[j], m, a);
  __m256 s = acc[0];
  for (int j = 1; j < 12; ++j) s = _mm256_add_ps(s, acc[j]);
  g_sink = _mm256_cvtss_f32(s);
  return 2.0 * 8 * 12 * double(iterations);
}

__attribute__((target("avx512f"))) double run_avx512(int64_t iterations) {
  __m512 acc[16];
  for (int j = 0; j < 16; ++j) acc[j] = _mm512_set1_ps(0.001f * float(j));
  const __m512 m = _mm512_set1_ps(0.9999f), a = _mm512_set1_ps(1e-4f);
  for (int64_t i = 0; i < iterations; ++i)
    for (int j = 0; j < 16; ++j) acc[j] = _mm512_fmadd_ps(acc[j], m, a);
  __m512 s = acc[0];
  for (int j = 1; j < 16; ++j) s = _mm512_add_ps(s, acc[j]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  g_sink = lanes[0] + lanes[15];
  return 2.0 * 16 * 16 * double(iterations);
}

__attribute__((target("sse2"))) float sum_sse2(const float* data, size_t n) {
  __m128 acc[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
  for (size_t i = 0; i < n; i += 16)
    for (int j = 0; j < 4; ++j) acc[j] = _mm_add_ps(acc[j], _mm_loadu_ps(data + i + 4 * j));
  __m128 s = _mm_add_ps(_mm_add_ps(acc[0], acc[1]), _mm_add_ps(acc[2], acc[3]));
  return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) float sum_avx2(const float* data, size_t n) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
  for (size_t i = 0; i < n; i += 32)
    for (int j = 0; j < 4; ++j) acc[j] = _mm256_add_ps(acc[j], _mm256_loadu_ps(data + i + 8 * j));
  __m256 s = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
  return _mm256_cvtss_f32(s);
}

__attribute__((target("avx512f"))) float sum_avx512(const float* data, size_t n) {
  __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(),
                   _mm512_setzero_ps()};
  for (size_t i = 0; i < n; i += 64)
    for (int j = 0; j < 4; ++j) acc[j] = _mm512_add_ps(acc[j], _mm512_loadu_ps(data + i + 16 * j));
  __m512 s = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  return lanes[0] + lanes[15];
}
#elif defined(__aarch64__)
double run_neon(int64_t iterations) {
  float32x4_t acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = vdupq_n_f32(0.001f * float(j));
  const float32x4_t m = vdupq_n_f32(0.9999f), a = vdupq_n_f32(1e-4f);
  for (int64_t i = 0; i < iterations; ++i)
    for (int j = 0; j < 12; ++j) acc[j] = vfmaq_f32(a, acc[j], m);
  float32x4_t s = acc[0];
  for (int j = 1; j < 12; ++j) s = vaddq_f32(s, acc[j]);
  g_sink = vaddvq_f32(s);
  return 2.0 * 4 * 12 * double(iterations);
}

float sum_neon(const float* data, size_t n) {
  float32x4_t acc[4] = {vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0), vdupq_n_f32(0)};
  for (size_t i = 0; i < n; i += 16)
    for (int j = 0; j < 4; ++j) acc[j] = vaddq_f32(acc[j], vld1q_f32(data + i + 4 * j));
  return vaddvq_f32(vaddq_f32(vaddq_f32(acc[0], acc[1]), vaddq_f32(acc[2], acc[3])));
}
#endif

}  // namespace

std::vector<PeakKernel> peak_kernels_for_this_cpu() {
  std::vector<PeakKernel> out;
#if defined(__x86_64__)
  out.push_back({"sse2", 4, run_sse2, sum_sse2});
  if (ingot_cpu_supports("avx2") == 1 && ingot_cpu_supports("fma") == 1)
    out.push_back({"avx2+fma", 8, run_avx2, sum_avx2});
  if (ingot_cpu_supports("avx512f") == 1) out.push_back({"avx512f", 16, run_avx512, sum_avx512});
#elif defined(__aarch64__)
  out.push_back({"neon", 4, run_neon, sum_neon});
#endif
  return out;
}

}  // namespace ingot::cli
