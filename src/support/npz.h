// Reading and writing NumPy .npz archives (a zip of `<name>.npy` members), as np.savez and
// np.load do. Errors are UserErrors naming the file and member.
#pragma once

#include <string>
#include <vector>

#include "support/npy.h"

namespace ingot {

// Reads every member, in archive order. Accepts stored and deflated members (np.savez and
// np.savez_compressed).
std::vector<NpyArray> read_npz(const std::string& path);
// The same from an archive in memory (an HTTP body, a fuzzer's input); `source` names it in
// messages, quoted as the caller wants it ("'request body'").
std::vector<NpyArray> read_npz_bytes(const void* data, size_t size, const std::string& source);

// Writes the arrays as `<name>.npy` members. Writes a temporary file next to `path` and renames
// it, so `path` is either the complete new archive or untouched.
void write_npz(const std::string& path, const std::vector<NpyArray>& arrays);

}  // namespace ingot
