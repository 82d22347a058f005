// Evicting an artifact's memory from the caches (see cache_evict.h).
#include "tools/ingot/cache_evict.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ingot::cli {

namespace {

struct SegmentSearch {
  uintptr_t base = 0;  // the object's load address (dladdr's dli_fbase)
  std::vector<MemoryRange> ranges;
};

int collect_segments(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<SegmentSearch*>(data);
  uintptr_t lowest = UINTPTR_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD)
      lowest = std::min<uintptr_t>(lowest, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (lowest == UINTPTR_MAX || lowest / 4096 != search->base / 4096) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type == PT_LOAD && p.p_memsz > 0)
      search->ranges.push_back(
          {reinterpret_cast<const void*>(info->dlpi_addr + p.p_vaddr), size_t(p.p_memsz)});
  }
  return 1;
}

}  // namespace

std::vector<MemoryRange> artifact_memory(const rt::Model& model) {
  Dl_info where{};
  if (dladdr(&model.artifact(), &where) == 0 || where.dli_fbase == nullptr) return {};
  SegmentSearch search;
  search.base = reinterpret_cast<uintptr_t>(where.dli_fbase);
  dl_iterate_phdr(collect_segments, &search);
  return search.ranges;
}

bool evict_lines(const std::vector<MemoryRange>& ranges) {
#if defined(__x86_64__) || defined(__aarch64__)
  constexpr uintptr_t kLine = 64;  // the smallest line either architecture has
  for (const MemoryRange& r : ranges) {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(r.begin) & ~(kLine - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(r.begin) + r.bytes;
    for (uintptr_t a = begin; a < end; a += kLine) {
#if defined(__x86_64__)
      _mm_clflush(reinterpret_cast<const void*>(a));
#else
      asm volatile("dc civac, %0" : : "r"(a) : "memory");
#endif
    }
  }
#if defined(__x86_64__)
  _mm_mfence();
#else
  asm volatile("dsb ish" : : : "memory");
#endif
  return true;
#else
  (void)ranges;
  return false;
#endif
}

}  // namespace ingot::cli
