// The LLVM backend: a tir::IRModule becomes LLVM modules (kernels, the entry function,
// constants and the exported ingot_artifact_v1 record), optimized at -O3 for the target: one
// module (emit_llvm_ir, emit_object), or split over threads (emit_object_files).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "tir/module.h"

namespace ingot::codegen {

// Optimized LLVM IR text (for `--dump llvm`).
std::string emit_llvm_ir(const tir::IRModule& module, const Target& target);

// A relocatable ELF object for the target.
std::vector<uint8_t> emit_object(const tir::IRModule& module, const Target& target);

struct ObjectFileOptions {
  int threads = 0;  // compile threads; 0: one per hardware thread
  // Called after each kernel is compiled with (kernels compiled, kernels in all), serialized,
  // with counts that only increase.
  std::function<void(int, int)> on_kernel;
};

struct ObjectFileStats {
  int objects = 0;  // files written
  int threads = 0;  // threads that compiled them
  struct Kernel {
    std::string name;
    double ms = 0;  // building, optimizing and emitting its module
  };
  std::vector<Kernel> kernels;  // in module order
};

class ScratchDir;

// The artifact as relocatable objects written into the scratch directory, compiled on several
// threads: one object per kernel (each kernel a hidden function, compiled alone: the kernels
// share nothing), one with the entry function and the record, and one holding the constant
// blob (codegen/elf_data_object.h), written without passing through LLVM into an in-memory
// file (ScratchDir::memory_file). Linked together
// (codegen/link.h: link_object_files) they make the same artifact as emit_object. Returns the
// paths of the objects.
std::vector<std::string> emit_object_files(const tir::IRModule& module, const Target& target,
                                           ScratchDir& scratch,
                                           const ObjectFileOptions& options = {},
                                           ObjectFileStats* stats = nullptr);

struct DeviceCode;

// A device artifact (GPU targets) as relocatable objects for the host machine, written into the
// scratch directory: the record with the device code and launches
// (module_builder.h: build_device_record_module) and the constant blob's data object. Linked
// together (link_object_files, for Target::host()) they make the artifact.
std::vector<std::string> emit_device_artifact_objects(const tir::IRModule& module,
                                                      const DeviceCode& device,
                                                      const std::string& target_string,
                                                      ScratchDir& scratch);

// A C artifact's objects for the host, beside the object the C compiler made of the C entry
// (codegen/c/c_library.h): the record whose entry calls `run_symbol`, naming `target_string`, and
// the constant blob as the hidden symbol `constants_symbol` that the C code reads (unless
// `with_constants` is false: an MLF's constants file defines it).
std::vector<std::string> emit_c_artifact_record_objects(
    const tir::IRModule& module, const std::string& run_symbol, const std::string& constants_symbol,
    const std::string& target_string, ScratchDir& scratch, bool with_constants = true);

}  // namespace ingot::codegen
