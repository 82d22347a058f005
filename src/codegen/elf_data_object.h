// A relocatable ELF64 object that holds one read-only byte array under one hidden global
// symbol, written straight from memory (one write, no compiler in between). Split builds put
// the constant blob, often 100 MB, in such an object, so LLVM never copies, hashes or emits it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ingot::codegen {

// Writes the object to `path`: section `.rodata.<symbol>` (allocatable, read-only, aligned to
// `align`, a power of two) holding `data`, symbol `symbol` (global, hidden, STT_OBJECT) at its
// start. `machine` is the ELF e_machine (EM_X86_64, EM_AARCH64); little-endian only. UserError
// when the file cannot be written.
void write_elf_data_object(const std::string& path, const std::vector<uint8_t>& data,
                           const std::string& symbol, uint64_t align, uint16_t machine);

}  // namespace ingot::codegen
