// Linking objects into a shared library in-process with LLD (no system toolchain needed).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/target.h"

namespace ingot::codegen {

// Links `object` (an ELF relocatable for `target`) into the shared library `out_path`. The
// output appears atomically (temp file + rename): on failure no file is left and a UserError
// names the path. Exports only the artifact symbol. Safe to call repeatedly and from several
// threads (links are serialized).
void link_shared_library(const std::vector<uint8_t>& object, const Target& target,
                         const std::string& out_path);

// The same for several relocatable objects already on disk (a split build: kernel objects, the
// entry object, the constant data object), linked together in the order given.
void link_object_files(const std::vector<std::string>& object_paths, const Target& target,
                       const std::string& out_path);

// A private scratch directory (mkdtemp under the system temp directory), removed with
// everything in it when this goes out of scope. UserError when it cannot be created.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  // A path for `name` in the directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // A path for a large scratch file that never needs a disk: an in-memory file (memfd), open
  // until this goes out of scope, named /proc/self/fd/N (any open() of it opens the same file).
  // Where memfd is not available, a file in the directory. (The system temp directory is often
  // a disk file system, where writing the 100-300 MB constant blob of a model would cost more
  // than the rest of the link.)
  std::string memory_file(const std::string& name);

 private:
  std::string path_;
  std::vector<int> fds_;
};

}  // namespace ingot::codegen
