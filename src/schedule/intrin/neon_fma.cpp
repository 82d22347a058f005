// AArch64 NEON FP32 register-tile choices (see neon_fma.h).
#include "schedule/intrin/neon_fma.h"

#include <algorithm>

namespace ingot::schedule {

int neon_tile_registers(int mr, int nr) {
  int vectors = (nr + kNeonLanes - 1) / kNeonLanes;
  return mr * vectors + vectors + 1;
}

int neon_max_tile_rows(int nr) {
  int vectors = (nr + kNeonLanes - 1) / kNeonLanes;
  return std::max(1, (kNeonRegisters - vectors - 1) / vectors);
}

FmaTileShape neon_fma_tile(int kc) {
  FmaTileShape s{kNeonLanes, 6, 16, kc, CpuVectorIsa::kAArch64};
  return s;
}

}  // namespace ingot::schedule
