// write_elf_data_object: the ELF header, the data, a symbol table with the one symbol, the
// string tables and five section headers (null, data, .symtab, .strtab, .shstrtab).
#include "codegen/elf_data_object.h"

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "support/error.h"

namespace ingot::codegen {
namespace {

uint64_t align_to(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

}  // namespace

void write_elf_data_object(const std::string& path, const std::vector<uint8_t>& data,
                           const std::string& symbol, uint64_t align, uint16_t machine) {
  INGOT_ICHECK(align > 0 && (align & (align - 1)) == 0, "alignment {} is not a power of two",
               align);
  const std::string section = ".rodata." + symbol;
  // String tables: index 0 is the empty name.
  std::string strtab = std::string(1, '\0') + symbol + '\0';
  std::string shstrtab = std::string(1, '\0');
  auto add_name = [&](const std::string& n) {
    uint32_t at = uint32_t(shstrtab.size());
    shstrtab += n + '\0';
    return at;
  };
  uint32_t n_data = add_name(section), n_symtab = add_name(".symtab"),
           n_strtab = add_name(".strtab"), n_shstrtab = add_name(".shstrtab");

  Elf64_Sym syms[2] = {};
  syms[1].st_name = 1;
  syms[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
  syms[1].st_other = STV_HIDDEN;
  syms[1].st_shndx = 1;
  syms[1].st_value = 0;
  syms[1].st_size = data.size();

  // Layout: header | data (aligned) | symtab (8) | strtab | shstrtab | section headers (8).
  uint64_t off_data = align_to(sizeof(Elf64_Ehdr), align);
  uint64_t off_symtab = align_to(off_data + data.size(), 8);
  uint64_t off_strtab = off_symtab + sizeof(syms);
  uint64_t off_shstrtab = off_strtab + strtab.size();
  uint64_t off_shdr = align_to(off_shstrtab + shstrtab.size(), 8);

  Elf64_Ehdr eh = {};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh.e_type = ET_REL;
  eh.e_machine = machine;
  eh.e_version = EV_CURRENT;
  eh.e_shoff = off_shdr;
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 5;
  eh.e_shstrndx = 4;

  Elf64_Shdr sh[5] = {};
  sh[1].sh_name = n_data;
  sh[1].sh_type = SHT_PROGBITS;
  sh[1].sh_flags = SHF_ALLOC;
  sh[1].sh_offset = off_data;
  sh[1].sh_size = data.size();
  sh[1].sh_addralign = align;
  sh[2].sh_name = n_symtab;
  sh[2].sh_type = SHT_SYMTAB;
  sh[2].sh_offset = off_symtab;
  sh[2].sh_size = sizeof(syms);
  sh[2].sh_link = 3;  // its string table
  sh[2].sh_info = 1;  // index of the first global symbol
  sh[2].sh_addralign = 8;
  sh[2].sh_entsize = sizeof(Elf64_Sym);
  sh[3].sh_name = n_strtab;
  sh[3].sh_type = SHT_STRTAB;
  sh[3].sh_offset = off_strtab;
  sh[3].sh_size = strtab.size();
  sh[3].sh_addralign = 1;
  sh[4].sh_name = n_shstrtab;
  sh[4].sh_type = SHT_STRTAB;
  sh[4].sh_offset = off_shstrtab;
  sh[4].sh_size = shstrtab.size();
  sh[4].sh_addralign = 1;

  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  auto pad_to = [&](uint64_t off) {
    static const char zeros[64] = {};
    for (uint64_t at = uint64_t(f.tellp()); at < off;) {
      uint64_t n = std::min<uint64_t>(off - at, sizeof(zeros));
      f.write(zeros, std::streamsize(n));
      at += n;
    }
  };
  f.write(reinterpret_cast<const char*>(&eh), sizeof(eh));
  pad_to(off_data);
  if (!data.empty())
    f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
  pad_to(off_symtab);
  f.write(reinterpret_cast<const char*>(syms), sizeof(syms));
  f.write(strtab.data(), std::streamsize(strtab.size()));
  f.write(shstrtab.data(), std::streamsize(shstrtab.size()));
  pad_to(off_shdr);
  f.write(reinterpret_cast<const char*>(sh), sizeof(sh));
  f.close();
  if (!f) fail_user("cannot write '{}': {}", path, std::strerror(errno));
}

}  // namespace ingot::codegen
