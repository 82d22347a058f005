// `ingot run` and `ingot inspect` take a Model Library Format tarball too: it is built for this
// machine with the host C compiler into a temporary shared library (driver/c_artifact.h), which
// lives as long as this object.
#pragma once

#include <memory>
#include <string>

namespace ingot::codegen {
class ScratchDir;
}

namespace ingot::cli {

class LoadableArtifact {
 public:
  // `path`: a .so, or an MLF tarball (recognised by its tar header, whatever its name).
  explicit LoadableArtifact(const std::string& path);
  ~LoadableArtifact();
  const std::string& path() const { return path_; }
  bool from_mlf() const { return scratch_ != nullptr; }

 private:
  std::unique_ptr<codegen::ScratchDir> scratch_;
  std::string path_;
};

}  // namespace ingot::cli
