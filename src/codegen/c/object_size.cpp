// ELF section sizes (see object_size.h).
#include "codegen/c/object_size.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "support/error.h"

namespace ingot::codegen {
namespace {

constexpr uint32_t kNoBits = 8;  // SHT_NOBITS
constexpr uint64_t kWrite = 1, kAlloc = 2, kExec = 4;

uint64_t read_le(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b.at(at + size_t(i));
  return v;
}

std::vector<uint8_t> read_elf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 52 || std::memcmp(b.data(), "\177ELF", 4) != 0 || b[5] != 1)
    fail_user("'{}' is not a little-endian ELF file", path);
  return b;
}

}  // namespace

SectionSizes elf_section_sizes(const std::string& path) {
  std::vector<uint8_t> b = read_elf(path);
  const bool is64 = b[4] == 2;
  SectionSizes s;
  try {
    const uint64_t shoff = read_le(b, is64 ? 0x28 : 0x20, is64 ? 8 : 4);
    const uint64_t shentsize = read_le(b, is64 ? 0x3A : 0x2E, 2);
    const uint64_t shnum = read_le(b, is64 ? 0x3C : 0x30, 2);
    for (uint64_t i = 0; i < shnum; ++i) {
      const size_t h = size_t(shoff + i * shentsize);
      const uint64_t type = read_le(b, h + 4, 4);
      const uint64_t flags = read_le(b, h + 8, is64 ? 8 : 4);
      const uint64_t size = read_le(b, h + (is64 ? 0x20 : 0x14), is64 ? 8 : 4);
      if (!(flags & kAlloc)) continue;
      if (type == kNoBits)
        s.bss += int64_t(size);
      else if (flags & kExec)
        s.text += int64_t(size);
      else if (flags & kWrite)
        s.data += int64_t(size);
      else
        s.rodata += int64_t(size);
    }
  } catch (const std::out_of_range&) {
    fail_user("'{}' is a truncated ELF file", path);
  }
  return s;
}

std::vector<std::string> elf_undefined_symbols(const std::string& path) {
  std::vector<uint8_t> b = read_elf(path);
  const bool is64 = b[4] == 2;
  std::vector<std::string> out;
  try {
    const uint64_t shoff = read_le(b, is64 ? 0x28 : 0x20, is64 ? 8 : 4);
    const uint64_t shentsize = read_le(b, is64 ? 0x3A : 0x2E, 2);
    const uint64_t shnum = read_le(b, is64 ? 0x3C : 0x30, 2);
    auto header = [&](uint64_t i) { return size_t(shoff + i * shentsize); };
    for (uint64_t i = 0; i < shnum; ++i) {
      const size_t h = header(i);
      if (read_le(b, h + 4, 4) != 2) continue;  // SHT_SYMTAB
      const size_t off = size_t(read_le(b, h + (is64 ? 0x18 : 0x10), is64 ? 8 : 4));
      const size_t size = size_t(read_le(b, h + (is64 ? 0x20 : 0x14), is64 ? 8 : 4));
      const uint64_t link = read_le(b, h + (is64 ? 0x28 : 0x18), 4);
      const size_t strtab = size_t(read_le(b, header(link) + (is64 ? 0x18 : 0x10), is64 ? 8 : 4));
      const size_t entry = is64 ? 24 : 16;
      for (size_t e = off; e + entry <= off + size; e += entry) {
        const uint64_t name = read_le(b, e, 4);
        const uint64_t shndx = read_le(b, e + (is64 ? 6 : 14), 2);
        if (shndx != 0 || name == 0) continue;  // defined, or the null symbol
        std::string n;
        for (size_t c = strtab + size_t(name); b.at(c) != 0; ++c) n += char(b[c]);
        out.push_back(n);
      }
    }
  } catch (const std::out_of_range&) {
    fail_user("'{}' is a truncated ELF file", path);
  }
  return out;
}

}  // namespace ingot::codegen
