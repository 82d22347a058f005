// MLF tarballs as loadable artifacts (see mlf_artifact.h).
#include "tools/ingot/mlf_artifact.h"

#include "codegen/link.h"
#include "driver/c_artifact.h"
#include "support/tar_archive.h"

namespace ingot::cli {

LoadableArtifact::LoadableArtifact(const std::string& path) : path_(path) {
  if (!looks_like_tar(path)) return;
  scratch_ = std::make_unique<codegen::ScratchDir>();
  path_ = scratch_->file("mlf.so");
  driver::build_mlf_for_host(path, path_);
}

LoadableArtifact::~LoadableArtifact() = default;

}  // namespace ingot::cli
