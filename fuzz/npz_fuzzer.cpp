// libFuzzer target: the .npz reader (zip through libarchive, then every .npy member) and the .npy
// parser on the same bytes. Bad archives and arrays must end in a UserError.
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "support/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ingot::fuzz::expect_user_errors_only([&] { ingot::read_npz_bytes(data, size, "'fuzz.npz'"); });
  ingot::fuzz::expect_user_errors_only([&] { ingot::parse_npy("'fuzz.npy'", data, size); });
  return 0;
}
