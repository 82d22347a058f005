// libFuzzer target: the ONNX importer (protobuf parse, graph checks, op conversion, shape and type
// inference) on arbitrary bytes. Every bad model must end in a UserError.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/onnx/importer.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  ingot::fuzz::expect_user_errors_only([&] {
    // No model directory: a fuzzed external-data reference must not reach the file system.
    ingot::frontend::import_onnx_bytes(bytes, "/nonexistent-fuzz-dir", "fuzz.onnx");
  });
  return 0;
}
