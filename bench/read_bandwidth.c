// A probe for docs/perf.md Table 7: the read bandwidth of a buffer of a given size, summed with
// 512-bit loads into four accumulators per thread (each thread its own first-touched slice),
// best of 8 passes. With the working set of a decode step (64 MB) it shows what the last-level
// cache serves; with a buffer past it, what DRAM serves. Needs AVX-512F.
//
//   gcc -O2 -mavx512f -fopenmp bench/read_bandwidth.c -o /tmp/read_bandwidth
//   OMP_NUM_THREADS=2 /tmp/read_bandwidth 64 358 1024    # MiB per buffer
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double read_gbs(size_t mib) {
  size_t n = (mib << 20) / sizeof(float) / 64 * 64;
  float* b = aligned_alloc(64, n * sizeof(float));
  if (b == NULL) return 0;
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) b[i] = 1.0f;
  double best = 0;
  float sink = 0;
  for (int pass = 0; pass < 8; ++pass) {
    double t = now();
#pragma omp parallel reduction(+ : sink)
    {
      size_t threads = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
      size_t lo = n * id / threads / 64 * 64, hi = n * (id + 1) / threads / 64 * 64;
      __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
      for (size_t i = lo; i < hi; i += 64) {
        a0 = _mm512_add_ps(a0, _mm512_load_ps(b + i));
        a1 = _mm512_add_ps(a1, _mm512_load_ps(b + i + 16));
        a2 = _mm512_add_ps(a2, _mm512_load_ps(b + i + 32));
        a3 = _mm512_add_ps(a3, _mm512_load_ps(b + i + 48));
      }
      float lanes[16];
      _mm512_storeu_ps(lanes, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
      sink += lanes[0];
    }
    t = now() - t;
    double gbs = (double)n * sizeof(float) / t * 1e-9;
    if (gbs > best) best = gbs;
  }
  free(b);
  if (sink < 0) printf(" ");  // keeps the sums live
  return best;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    size_t mib = (size_t)strtoul(argv[i], NULL, 10);
    printf("%zu MiB: %.1f GB/s on %d threads\n", mib, read_gbs(mib), omp_get_max_threads());
  }
  return 0;
}
