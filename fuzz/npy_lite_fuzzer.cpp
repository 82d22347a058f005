// libFuzzer target: ingot_run_lite's C .npy reader (tools/ingot_run_lite/npy.c), which reads
// input files on devices and under emulation. It must fail with a message, never crash.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"

extern "C" {
#include "tools/ingot_run_lite/npy.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ingot::fuzz::MemFile file(data, size);
  NpyArray a;
  char err[256];
  if (npy_read(file.path().c_str(), &a, err, sizeof(err)) == 0) npy_free(&a);
  return 0;
}
