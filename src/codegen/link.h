// Linking an object into a shared library in-process with LLD (no system toolchain needed).
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

}  // namespace ingot::codegen
