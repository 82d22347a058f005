// libFuzzer target: the runtime's artifact loader on arbitrary files. Everything it does before
// mapping a file (stat, the ELF header and program header checks, the checksum trailer and the
// hash) runs on the fuzzed bytes; a file that passes the checksum is exactly what the compiler
// wrote, so only those checks stand between a corrupt file and dlopen, and they are what is
// fuzzed. The seed is a real sealed artifact.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "ingot/runtime.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ingot::fuzz::MemFile file(data, size);
  IngotModel* model = nullptr;
  for (uint32_t flags : {0u, unsigned(INGOT_LOAD_FOR_INSPECTION)}) {
    if (ingot_model_load_ex(file.path().c_str(), flags, &model) == INGOT_OK) {
      ingot_model_free(model);  // only an intact artifact gets here
    }
  }
  return 0;
}
