// Section sizes of an ELF object or executable (32- or 64-bit, little-endian), grouped as a
// microcontroller's memories see them: code and read-only data go to flash, initialized data to
// flash and RAM, zero-initialized data to RAM. The same grouping as `arm-none-eabi-size -A`.
// Also the undefined symbols of an object (what the C target's host build must not reference).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ingot::codegen {

struct SectionSizes {
  int64_t text = 0;    // allocatable, executable
  int64_t rodata = 0;  // allocatable, read-only, not executable
  int64_t data = 0;    // allocatable, writable, with contents
  int64_t bss = 0;     // allocatable, no contents (SHT_NOBITS)
};

// UserError naming the file when it is not a little-endian ELF file.
SectionSizes elf_section_sizes(const std::string& path);

// The undefined symbols an ELF object references (its .symtab), in table order.
std::vector<std::string> elf_undefined_symbols(const std::string& path);

}  // namespace ingot::codegen
