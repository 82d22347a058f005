// A probe for docs/perf.md Table 7: does software prefetch help a one-stream-per-thread read like
// the decode products' (int8 column blocks of [768 rows x 64 lanes], one block per task, partial
// sums per group of 128 rows)? The weights are flushed from every cache level (clflush) before
// each timed run. Prints the cold read bandwidth for prefetch distances 0 (none) to 4096 bytes.
//
//   gcc -O3 -march=native -fopenmp bench/prefetch_stream.c -o /tmp/prefetch_stream
//   OMP_NUM_THREADS=2 /tmp/prefetch_stream
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define K 768  // rows of a block (GPT-2's hidden size)
#define L 64   // lanes of a block (columns per task)
#define GROUP 128

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run(const int8_t* w, const float* x, const float* scales, float* y, int blocks,
                int distance) {
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    const int8_t* block = w + (size_t)b * K * L;
    float acc[L] = {0};
    for (int g = 0; g < K / GROUP; ++g) {
      float part[L] = {0};
      for (int k = g * GROUP; k < (g + 1) * GROUP; k += 2) {
        if (distance) __builtin_prefetch(block + (size_t)k * L + distance, 0, 3);
        const int8_t* r0 = block + (size_t)k * L;
        for (int j = 0; j < L; ++j) part[j] += x[k] * r0[j] + x[k + 1] * r0[L + j];
      }
      const float* s = scales + ((size_t)b * (K / GROUP) + g) * L;
      for (int j = 0; j < L; ++j) acc[j] += part[j] * s[j];
    }
    memcpy(y + (size_t)b * L, acc, sizeof acc);
  }
}

int main(void) {
  const int blocks = 786;  // GPT-2's LM head: 50257 columns
  const size_t n = (size_t)blocks * K * L;
  int8_t* w = malloc(n);
  float* x = malloc(K * sizeof(float));
  float* scales = malloc((size_t)blocks * (K / GROUP) * L * sizeof(float));
  float* y = malloc((size_t)blocks * L * sizeof(float));
  if (!w || !x || !scales || !y) return 1;
  for (size_t i = 0; i < n; ++i) w[i] = (int8_t)(i * 7);
  for (int i = 0; i < K; ++i) x[i] = (float)i * 0.001f;
  for (size_t i = 0; i < (size_t)blocks * (K / GROUP) * L; ++i) scales[i] = 0.01f;
  const int distances[] = {0, 256, 512, 1024, 2048, 4096};
  for (size_t d = 0; d < sizeof distances / sizeof distances[0]; ++d) {
    double best = 1e9;
    for (int r = 0; r < 8; ++r) {
      for (size_t i = 0; i < n; i += 64) _mm_clflush(w + i);
      _mm_mfence();
      double t0 = now();
      run(w, x, scales, y, blocks, distances[d]);
      double t = now() - t0;
      if (t < best) best = t;
    }
    printf("prefetch %4d bytes ahead: %.3f ms, %.1f GB/s\n", distances[d], best * 1e3,
           (double)n / best / 1e9);
  }
  printf("(checksum %g)\n", (double)y[5]);
  return 0;
}
