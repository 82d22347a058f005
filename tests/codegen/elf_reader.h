// Minimal ELF64 reader for tests: the dynamic symbols (defined / undefined), DT_NEEDED entries
// and the machine of a shared library, without depending on binutils.
#pragma once

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace ingot::codegen::test {

struct ElfInfo {
  uint16_t machine = 0;
  std::vector<std::string> defined_globals;  // global/weak dynamic symbols with a definition
  std::vector<std::string> undefined;        // dynamic symbols without one
  std::vector<std::string> needed;           // DT_NEEDED
};

inline ElfInfo read_elf(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> d((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ElfInfo info;
  if (d.size() < sizeof(Elf64_Ehdr) || std::memcmp(d.data(), ELFMAG, SELFMAG) != 0) return info;
  auto* eh = reinterpret_cast<const Elf64_Ehdr*>(d.data());
  info.machine = eh->e_machine;
  auto* sh = reinterpret_cast<const Elf64_Shdr*>(d.data() + eh->e_shoff);
  for (int s = 0; s < eh->e_shnum; ++s) {
    const char* strtab = d.data() + sh[sh[s].sh_link].sh_offset;
    if (sh[s].sh_type == SHT_DYNSYM) {
      auto* syms = reinterpret_cast<const Elf64_Sym*>(d.data() + sh[s].sh_offset);
      size_t n = sh[s].sh_size / sizeof(Elf64_Sym);
      for (size_t i = 1; i < n; ++i) {
        std::string name = strtab + syms[i].st_name;
        int bind = ELF64_ST_BIND(syms[i].st_info);
        if (syms[i].st_shndx == SHN_UNDEF) {
          info.undefined.push_back(name);
        } else if (bind == STB_GLOBAL || bind == STB_WEAK) {
          info.defined_globals.push_back(name);
        }
      }
    } else if (sh[s].sh_type == SHT_DYNAMIC) {
      auto* dyn = reinterpret_cast<const Elf64_Dyn*>(d.data() + sh[s].sh_offset);
      for (size_t i = 0; i < sh[s].sh_size / sizeof(Elf64_Dyn) && dyn[i].d_tag != DT_NULL; ++i)
        if (dyn[i].d_tag == DT_NEEDED) info.needed.push_back(strtab + dyn[i].d_un.d_val);
    }
  }
  return info;
}

}  // namespace ingot::codegen::test
