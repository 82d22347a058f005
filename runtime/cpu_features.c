/* The running CPU's features by LLVM's names (CPUID leaves and XCR0 on x86-64, AT_HWCAP and
 * AT_HWCAP2 on aarch64 Linux) and the load-time check of an artifact's ISA requirement against
 * them: an artifact built for features this CPU lacks is refused with one error, never SIGILL.
 * An artifact of AMX tiles also needs the tile state, which Linux grants a process on request
 * (arch_prctl ARCH_REQ_XCOMP_PERM): the check asks once, and refuses the artifact if denied. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

typedef struct CpuFeature {
  const char* name;
  int present;
} CpuFeature;

#define MAX_FEATURES 48

static CpuFeature g_features[MAX_FEATURES];
static int g_num_features;
static char g_feature_list[1024];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void add_feature(const char* name, int present) {
  if (g_num_features < MAX_FEATURES) {
    g_features[g_num_features].name = name;
    g_features[g_num_features].present = present != 0;
    ++g_num_features;
  }
}

#if defined(__x86_64__) || defined(__i386__)
/* XCR0: which register states the OS saves (YMM needs bits 1-2, ZMM bits 5-7 too). */
static unsigned long long read_xcr0(void) {
  unsigned int lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((unsigned long long)hi << 32) | lo;
}

static void detect(void) {
  unsigned int a = 0, b = 0, c1 = 0, d1 = 0, max = __get_cpuid_max(0, NULL);
  unsigned int b7 = 0, c7 = 0, d7 = 0, a71 = 0, c81 = 0, x = 0, y = 0, z = 0;
  __get_cpuid(1, &a, &b, &c1, &d1);
  if (max >= 7) {
    __cpuid_count(7, 0, a, b7, c7, d7);
    __cpuid_count(7, 1, a71, x, y, z);
  }
  if (__get_cpuid_max(0x80000000u, NULL) >= 0x80000001u) __get_cpuid(0x80000001u, &x, &y, &c81, &z);
  int osxsave = (c1 >> 27) & 1;
  unsigned long long xcr0 = osxsave ? read_xcr0() : 0;
  int ymm = (xcr0 & 0x6) == 0x6;
  int zmm = ymm && (xcr0 & 0xe0) == 0xe0;
  int tiles = (xcr0 & 0x60000ull) == 0x60000ull; /* XTILECFG and XTILEDATA */
#define BIT(reg, n) (((reg) >> (n)) & 1u)
  add_feature("sse3", BIT(c1, 0));
  add_feature("ssse3", BIT(c1, 9));
  add_feature("sse4.1", BIT(c1, 19));
  add_feature("sse4.2", BIT(c1, 20));
  add_feature("popcnt", BIT(c1, 23));
  add_feature("movbe", BIT(c1, 22));
  add_feature("avx", BIT(c1, 28) && ymm);
  add_feature("f16c", BIT(c1, 29) && ymm);
  add_feature("fma", BIT(c1, 12) && ymm);
  add_feature("bmi", BIT(b7, 3));
  add_feature("bmi2", BIT(b7, 8));
  add_feature("lzcnt", BIT(c81, 5));
  add_feature("avx2", BIT(b7, 5) && ymm);
  add_feature("avxvnni", BIT(a71, 4) && ymm);
  add_feature("gfni", BIT(c7, 8));
  add_feature("sse4a", BIT(c81, 6));
  add_feature("xop", BIT(c81, 11) && ymm);
  add_feature("fma4", BIT(c81, 16) && ymm);
  add_feature("tbm", BIT(c81, 21));
  add_feature("avx512f", BIT(b7, 16) && zmm);
  add_feature("avx512dq", BIT(b7, 17) && zmm);
  add_feature("avx512cd", BIT(b7, 28) && zmm);
  add_feature("avx512bw", BIT(b7, 30) && zmm);
  add_feature("avx512vl", BIT(b7, 31) && zmm);
  add_feature("avx512ifma", BIT(b7, 21) && zmm);
  add_feature("avx512vbmi", BIT(c7, 1) && zmm);
  add_feature("avx512vbmi2", BIT(c7, 6) && zmm);
  add_feature("avx512vnni", BIT(c7, 11) && zmm);
  add_feature("avx512bitalg", BIT(c7, 12) && zmm);
  add_feature("avx512vpopcntdq", BIT(c7, 14) && zmm);
  add_feature("avx512bf16", BIT(a71, 5) && zmm);
  add_feature("avx512fp16", BIT(d7, 23) && zmm);
  add_feature("amx-tile", BIT(d7, 24) && tiles);
  add_feature("amx-int8", BIT(d7, 25) && tiles);
  add_feature("amx-bf16", BIT(d7, 22) && tiles);
#undef BIT
}

/* Linux keeps the AMX tile data state (8 KiB) off until a process asks for it. */
static int g_amx_granted;
static pthread_once_t g_amx_once = PTHREAD_ONCE_INIT;

static void request_amx(void) {
#if defined(__linux__) && defined(SYS_arch_prctl)
  const long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  g_amx_granted = syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  g_amx_granted = 0;
#endif
}

static int amx_granted(void) {
  pthread_once(&g_amx_once, request_amx);
  return g_amx_granted;
}

static int is_vector_feature(const char* name) {
  return strncmp(name, "avx", 3) == 0 || strcmp(name, "fma") == 0 ||
         strncmp(name, "sse4", 4) == 0 || strncmp(name, "amx", 3) == 0;
}
#elif defined(__aarch64__) && defined(__linux__)
static void detect(void) {
  unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
#define BIT(reg, n) (((reg) >> (n)) & 1ul)
  add_feature("fp-armv8", BIT(hw, 0));
  add_feature("neon", BIT(hw, 1));
  add_feature("fullfp16", BIT(hw, 9) && BIT(hw, 10));
  add_feature("dotprod", BIT(hw, 20));
  add_feature("sve", BIT(hw, 22));
  add_feature("sve2", BIT(hw2, 1));
  add_feature("i8mm", BIT(hw2, 13));
  add_feature("bf16", BIT(hw2, 14));
#undef BIT
}

static int is_vector_feature(const char* name) {
  (void)name;
  return 1;
}
#else
static void detect(void) {}

static int is_vector_feature(const char* name) {
  (void)name;
  return 1;
}
#endif

#if !defined(__x86_64__) && !defined(__i386__)
static int amx_granted(void) {
  return 0;
}
#endif

static void append(char* buf, size_t size, const char* sep, const char* s) {
  size_t n = strlen(buf);
  if (n + strlen(sep) + strlen(s) + 1 < size) {
    if (n > 0) strcat(buf, sep);
    strcat(buf, s);
  }
}

static void init_features(void) {
  detect();
  g_feature_list[0] = '\0';
  for (int i = 0; i < g_num_features; ++i)
    if (g_features[i].present)
      append(g_feature_list, sizeof(g_feature_list), ",", g_features[i].name);
}

static const CpuFeature* find_feature(const char* name, size_t len) {
  pthread_once(&g_once, init_features);
  for (int i = 0; i < g_num_features; ++i)
    if (strlen(g_features[i].name) == len && strncmp(g_features[i].name, name, len) == 0)
      return &g_features[i];
  return NULL;
}

INGOT_API int ingot_cpu_supports(const char* feature) {
  if (feature == NULL) return -1;
  const CpuFeature* f = find_feature(feature, strlen(feature));
  return f == NULL ? -1 : f->present;
}

INGOT_API const char* ingot_cpu_features(void) {
  pthread_once(&g_once, init_features);
  return g_feature_list;
}

ingot_status ingot_check_isa(const char* path, const char* requirement) {
  if (requirement == NULL || requirement[0] == '\0') return INGOT_OK;
  char missing[512] = "", unknown[256] = "", has[512] = "";
  int tiles = 0;
  const char* p = requirement;
  while (*p != '\0') {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > 0 && len < 64) {
      char name[64];
      memcpy(name, p, len);
      name[len] = '\0';
      const CpuFeature* f = find_feature(name, len);
      if (strcmp(name, "amx-tile") == 0) tiles = 1;
      if (f == NULL) {
        append(unknown, sizeof(unknown), ", ", name);
      } else if (!f->present) {
        append(missing, sizeof(missing), ", ", name);
      }
    }
    p = end ? end + 1 : p + len;
  }
  if (unknown[0] != '\0') {
    return ingot_fail(INGOT_ERR_LOAD,
                      "artifact '%s' needs CPU features this runtime cannot check (%s): it was "
                      "built for another architecture or by a newer ingot",
                      path, unknown);
  }
  if (missing[0] == '\0') {
    if (tiles && !amx_granted()) {
      return ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' uses AMX tiles, and the operating system refused this "
                        "process their state (arch_prctl ARCH_REQ_XCOMP_PERM; Linux 5.16 or "
                        "later grants it): recompile with -mattr=-amx-tile",
                        path);
    }
    return INGOT_OK;
  }
  for (int i = 0; i < g_num_features; ++i)
    if (g_features[i].present && is_vector_feature(g_features[i].name))
      append(has, sizeof(has), ", ", g_features[i].name);
  return ingot_fail(INGOT_ERR_LOAD,
                    "artifact '%s' needs %s; this CPU has %s (recompile with --target \"llvm\" "
                    "on this machine, or a -mcpu/-mattr it supports)",
                    path, missing, has[0] != '\0' ? has : "none of its vector features");
}
