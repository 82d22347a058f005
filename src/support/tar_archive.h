// Tar files of named byte strings (the Model Library Format), through libarchive.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ingot {

using ArchiveFiles = std::vector<std::pair<std::string, std::string>>;  // path in archive, bytes

// Writes `files` as a POSIX (pax) tar at `path`, appearing atomically (temp file + rename): on
// failure no file is left and a UserError names the path.
void write_tar(const std::string& path, const ArchiveFiles& files);

// The regular files of a tar (any compression libarchive reads), in archive order. UserError
// naming the path when it is not an archive; a member over `max_member_bytes` is refused.
ArchiveFiles read_tar(const std::string& path, size_t max_member_bytes = size_t(1) << 31);

// Whether the file starts like a tar (the "ustar" magic at byte 257).
bool looks_like_tar(const std::string& path);

}  // namespace ingot
