/* Aligned allocation and a monotonic clock, the runtime's only platform helpers. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

void* ingot_aligned_alloc(size_t bytes) {
  size_t rounded = (bytes + INGOT_ALIGNMENT - 1) / INGOT_ALIGNMENT * INGOT_ALIGNMENT;
  if (rounded < bytes) return NULL; /* overflow */
  if (rounded == 0) rounded = INGOT_ALIGNMENT;
  void* p = NULL;
  if (posix_memalign(&p, INGOT_ALIGNMENT, rounded) != 0) return NULL;
  memset(p, 0, rounded);
  return p;
}

void ingot_aligned_free(void* p) {
  free(p);
}

double ingot_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
