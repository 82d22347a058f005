/* Pre-dlopen sanity check of an artifact file: exists, is an ELF shared object of this machine's
 * class and architecture, and is not truncated (mapping a truncated file would fault on first
 * touch). */
#define _POSIX_C_SOURCE 200809L
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#if UINTPTR_MAX == 0xffffffffffffffffull
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Phdr Phdr;
#define HOST_ELF_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Phdr Phdr;
#define HOST_ELF_CLASS ELFCLASS32
#endif

#if defined(__x86_64__)
#define HOST_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_ELF_MACHINE EM_AARCH64
#endif

static const char* machine_name(unsigned m) {
  switch (m) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "x86";
    case EM_ARM:
      return "arm";
    case EM_RISCV:
      return "riscv";
    default:
      return "another architecture";
  }
}

static ingot_status truncated(const char* path, long long size, unsigned long long need) {
  return ingot_fail(INGOT_ERR_LOAD,
                    "artifact '%s' is truncated or corrupt: file has %lld bytes, its ELF headers "
                    "need at least %llu",
                    path, size, need);
}

ingot_status ingot_check_elf_file(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    return ingot_fail(INGOT_ERR_LOAD, "cannot open artifact '%s': %s", path, strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return ingot_fail(INGOT_ERR_LOAD, "cannot open artifact '%s': not a regular file", path);
  }
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    return ingot_fail(INGOT_ERR_LOAD, "cannot open artifact '%s': %s", path, strerror(errno));
  }
  Ehdr eh;
  size_t got = fread(&eh, 1, sizeof(eh), f);
  ingot_status status = INGOT_OK;
  long long size = (long long)st.st_size;
  if (got < EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    status =
        ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is not a shared library (no ELF header)", path);
  } else if (eh.e_ident[EI_CLASS] != HOST_ELF_CLASS) {
    status = ingot_fail(
        INGOT_ERR_LOAD, "artifact '%s' is a %d-bit ELF file, this runtime is %d-bit", path,
        eh.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32, HOST_ELF_CLASS == ELFCLASS64 ? 64 : 32);
  } else if (got < sizeof(eh)) {
    status = truncated(path, size, (unsigned long long)sizeof(eh));
#ifdef HOST_ELF_MACHINE
  } else if (eh.e_machine != HOST_ELF_MACHINE) {
    /* dlopen would only say "No such file or directory". */
    status = ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' is built for %s (ELF machine %u); this runtime runs %s "
                        "artifacts",
                        path, machine_name(eh.e_machine), (unsigned)eh.e_machine,
                        machine_name(HOST_ELF_MACHINE));
#endif
  } else if (eh.e_type != ET_DYN) {
    status = ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' is not a shared library (ELF type %u, expected %u)", path,
                        (unsigned)eh.e_type, (unsigned)ET_DYN);
  } else {
    unsigned long long need =
        (unsigned long long)eh.e_phoff + (unsigned long long)eh.e_phnum * eh.e_phentsize;
    unsigned long long sh_end =
        (unsigned long long)eh.e_shoff + (unsigned long long)eh.e_shnum * eh.e_shentsize;
    if (sh_end > need) need = sh_end;
    if (need > (unsigned long long)size) {
      status = truncated(path, size, need);
    } else if (eh.e_phentsize == sizeof(Phdr) && fseek(f, (long)eh.e_phoff, SEEK_SET) == 0) {
      for (unsigned i = 0; i < eh.e_phnum && status == INGOT_OK; ++i) {
        Phdr ph;
        if (fread(&ph, 1, sizeof(ph), f) != sizeof(ph)) {
          status = truncated(path, size, need);
          break;
        }
        unsigned long long end = (unsigned long long)ph.p_offset + ph.p_filesz;
        if (ph.p_type == PT_LOAD && end > (unsigned long long)size)
          status = truncated(path, size, end);
      }
    }
  }
  fclose(f);
  return status;
}
