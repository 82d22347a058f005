// The `c` target as a shared library the runtime loads: the model's C (c_model_source.h)
// compiled by the host's C compiler, linked by LLD with a record whose entry calls it and with
// the constant blob as a data object. Single-threaded (the C entry has no thread pool), for the
// host: portable code checked on the machine that compiles it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/build.h"
#include "codegen/c/c_model_source.h"

namespace ingot::codegen {

// The host C compiler: $INGOT_CC, else $CC, else cc, gcc or clang from PATH. UserError when none
// is found.
std::string host_c_compiler();

// The flags of the host builds of ingot's C (a shared library, `ingot run model.tar`): C99, -O3
// (the host's compiler vectorizes the loop nests: 4.3x faster than -O2 on the float DS-CNN), no
// strict aliasing (the workspace holds tensors of every type), position-independent, hidden
// symbols, no stack protector (its guard symbol is not in the artifact). An MLF's own flags are
// -O2, a microcontroller's usual trade of size for speed (driver/c_artifact.h).
const std::vector<std::string>& c_build_flags();

// Writes `text` to `dir`/`file` and compiles it with `compiler` and `flags` into the object
// `object_path` (-I `dir`: the model's header is written there first). UserError with the
// compiler's first error line when it fails.
void compile_c_file(const std::string& file, const std::string& text, const std::string& compiler,
                    const std::vector<std::string>& flags, const std::string& dir,
                    const std::string& object_path);

// Whether an object the C compiler made references _GLOBAL_OFFSET_TABLE_, which must not be
// linked in-process (a shared-library build fails instead). LLD 19
// keeps its pointer to that symbol (ElfSym::globalOffsetTable) after an in-process link, and
// the next link in the process writes through it into freed memory (found by valgrind: a C
// artifact's link followed by an llvm one). The C sources declare the model's own symbols
// hidden in a host build (INGOT_HIDDEN_SYMBOLS), so the compiler reaches them PC-relative and
// never names the GOT.
bool references_got(const std::string& object);

// The shared library of a module in loop form for a `c` target (which must take no C compiler
// options: the library is for the host). `before_link` (optional) sees the model's object before
// anything is written; an exception from it ends the build (the memory report's limits).
BuildStats build_c_shared_library(const tir::IRModule& module, const Target& target,
                                  const std::string& out_path,
                                  const std::function<void(const std::string&)>& before_link = {});

}  // namespace ingot::codegen
