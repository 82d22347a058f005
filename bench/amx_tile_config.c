/* amx_tile_config: what a tile configuration costs next to the tile products (docs/perf.md,
 * session 48). One "tile program" as ingot's 32 x 32 AMX micro-kernel runs it: load 2 x 2 C
 * tiles, per step load 2 A and 2 B tiles and multiply 4 pairs (TDPBUSD), store C; timed with
 * LDTILECFG + TILERELEASE around every program ("per program") and once around all of them
 * ("once"), in TSC ticks per program and per TDPBUSD, for 1, 3 and 9 steps. Needs an AMX-INT8
 * CPU and Linux 5.16+ (it asks for the tile state first); exits 77 elsewhere.
 *   gcc -O2 -mamx-tile -mamx-int8 bench/amx_tile_config.c -o /tmp/amx_tile_config
 *   /tmp/amx_tile_config
 */
#include <cpuid.h>
#include <immintrin.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

static unsigned char A[32 * 64] __attribute__((aligned(64)));
static unsigned char B[16 * 128] __attribute__((aligned(64)));
static int C[32 * 32] __attribute__((aligned(64)));

static void program(int steps) {
  _tile_loadd(0, C, 128);
  _tile_loadd(1, C + 16, 128);
  _tile_loadd(2, C + 512, 128);
  _tile_loadd(3, C + 528, 128);
  for (int s = 0; s < steps; ++s) {
    _tile_loadd(4, A, 64);
    _tile_loadd(5, A + 1024, 64);
    _tile_loadd(6, B, 128);
    _tile_loadd(7, B + 64, 128);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  _tile_stored(0, C, 128);
  _tile_stored(1, C + 16, 128);
  _tile_stored(2, C + 512, 128);
  _tile_stored(3, C + 528, 128);
}

int main(void) {
  unsigned int eax, ebx, ecx, edx;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  if (!((edx >> 25) & 1) || syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18) != 0) {
    puts("skip: no AMX-INT8, or the OS refused the tile state");
    return 77;
  }
  unsigned char config[64] __attribute__((aligned(64)));
  memset(config, 0, sizeof config);
  config[0] = 1;  // palette 1; every tile 16 rows x 64 bytes
  for (int t = 0; t < 8; ++t) {
    config[16 + 2 * t] = 64;
    config[48 + t] = 16;
  }
  const int n = 200000;
  for (int steps = 1; steps <= 9; steps *= 3)
    for (int once = 0; once < 2; ++once) {
      unsigned long long t0 = __rdtsc();
      if (once) _tile_loadconfig(config);
      for (int i = 0; i < n; ++i) {
        if (!once) _tile_loadconfig(config);
        program(steps);
        if (!once) _tile_release();
      }
      if (once) _tile_release();
      const double per = (double)(__rdtsc() - t0) / n;
      printf("steps %d, configuration %-11s: %7.1f ticks per program, %5.1f per TDPBUSD\n", steps,
             once ? "once" : "per program", per, per / (4 * steps));
    }
  return 0;
}
