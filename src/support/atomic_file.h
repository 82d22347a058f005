// Writing a whole file atomically: a temporary file in the destination's folder, renamed over
// the destination once complete, so a failed write never leaves a half-written file.
#pragma once

#include <string>

namespace ingot {

// Throws UserError naming `path` when it cannot be written.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace ingot
