// link_shared_library / link_object_files with LLD's ELF driver in-process. The objects and a
// version script (which exports only the artifact symbol) are files in a private temp
// directory; LLD writes a temp file next to the destination which is renamed into place only
// when the link succeeded.
#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "artifact_checksum.h"
#include "codegen/link.h"
#include "ingot/abi.h"
#include "support/error.h"

LLD_HAS_DRIVER(elf)

namespace ingot::codegen {
namespace {

namespace fs = std::filesystem;

void write_file(const fs::path& p, const void* data, size_t size) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), std::streamsize(size));
  if (!f) fail_user("cannot write '{}'", p.string());
}

// True when `p` is a 64-bit little-endian ELF file for machine `em` (EM_X86_64, EM_AARCH64).
bool is_elf_for(const fs::path& p, uint16_t em) {
  unsigned char h[20] = {};
  std::ifstream f(p, std::ios::binary);
  if (!f.read(reinterpret_cast<char*>(h), sizeof(h))) return false;
  return std::memcmp(h, "\177ELF", 4) == 0 && h[4] == 2 && h[5] == 1 &&
         uint16_t(h[18] | (h[19] << 8)) == em;
}

// libm of the target on this machine, so the artifact gets DT_NEEDED libm.so.6 ("" if none):
// the multiarch directories, Debian's cross sysroot (/usr/aarch64-linux-gnu/lib, from
// libc6-dev-arm64-cross) and /lib64; a file for another machine (x86-64's /lib64 when
// cross-compiling) is skipped.
std::string find_libm(const Target& target) {
  // Normalized: "aarch64-linux-gnu" as written parses with OS unknown.
  llvm::Triple t(llvm::Triple::normalize(target.triple));
  if (!t.isOSLinux()) return "";
  uint16_t em = t.getArch() == llvm::Triple::x86_64    ? 62   // EM_X86_64
                : t.getArch() == llvm::Triple::aarch64 ? 183  // EM_AARCH64
                                                       : 0;
  std::string multiarch = t.getArchName().str() + "-linux-gnu";
  for (const std::string& dir :
       {"/lib/" + multiarch, "/usr/lib/" + multiarch, "/usr/" + multiarch + "/lib",
        std::string("/lib64"), std::string("/usr/lib64")}) {
    fs::path p = fs::path(dir) / "libm.so.6";
    std::error_code ec;
    if (fs::is_regular_file(p, ec) && (em == 0 || is_elf_for(p, em))) return p.string();
  }
  return "";
}

std::mutex& lld_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

ScratchDir::ScratchDir() {
  std::string tmpl = (fs::temp_directory_path() / "ingot-link-XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    fail_user("cannot create a temporary directory in '{}': {}", fs::temp_directory_path().string(),
              std::strerror(errno));
  path_ = tmpl;
}

ScratchDir::~ScratchDir() {
  for (int fd : fds_) close(fd);
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string ScratchDir::memory_file(const std::string& name) {
  int fd = memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return file(name);
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (access(path.c_str(), W_OK) != 0) {  // no /proc
    close(fd);
    return file(name);
  }
  fds_.push_back(fd);
  return path;
}

void link_shared_library(const std::vector<uint8_t>& object, const Target& target,
                         const std::string& out_path) {
  ScratchDir scratch;
  fs::path obj = fs::path(scratch.path()) / "model.o";
  write_file(obj, object.data(), object.size());
  link_object_files({obj.string()}, target, out_path);
}

void link_object_files(const std::vector<std::string>& object_paths, const Target& target,
                       const std::string& out_path) {
  fs::path out(out_path);
  if (out.filename().empty()) fail_user("cannot write '{}': not a file name", out_path);
  fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");

  ScratchDir scratch;
  fs::path script = fs::path(scratch.path()) / "exports.map";
  std::string map = std::string("{\n  global: ") + INGOT_ARTIFACT_SYMBOL + ";\n  local: *;\n};\n";
  write_file(script, map.data(), map.size());

  std::string tmp = (dir / ("." + out.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmp.data());
  if (fd < 0) fail_user("cannot write '{}': {}", out_path, std::strerror(errno));
  close(fd);

  std::string soname = out.filename().string();
  std::string libm = find_libm(target);
  std::string script_s = script.string();
  std::vector<const char*> args = {"ld.lld",
                                   "-shared",
                                   "-o",
                                   tmp.c_str(),
                                   "-soname",
                                   soname.c_str(),
                                   "--no-undefined-version",
                                   "--version-script",
                                   script_s.c_str(),
                                   "-z",
                                   "now",
                                   "-z",
                                   "relro",
                                   "-z",
                                   "noexecstack",
                                   "--gc-sections",
                                   "--build-id",
                                   "--hash-style=gnu"};
  for (const std::string& p : object_paths) args.push_back(p.c_str());
  if (!libm.empty()) args.push_back(libm.c_str());

  std::string out_text, err_text;
  int ret;
  {
    std::lock_guard<std::mutex> lock(lld_mutex());
    static bool broken = false;
    if (broken) fail_internal("LLD crashed earlier in this process and cannot link again");
    llvm::raw_string_ostream os(out_text), es(err_text);
    lld::Result r = lld::lldMain(args, os, es, {{lld::Gnu, &lld::elf::link}});
    ret = r.retCode;
    if (!r.canRunAgain) broken = true;
  }
  std::error_code ec;
  if (ret != 0) {
    fs::remove(tmp, ec);
    fail_user("linking '{}' failed: {}", out_path, err_text.empty() ? out_text : err_text);
  }
  // The checksum trailer (abi.h): the runtime refuses a file whose bytes changed after this.
  if (ingot_seal_artifact_file(tmp.c_str()) != 0) {
    int err = errno;
    fs::remove(tmp, ec);
    fail_user("cannot write '{}': {}", out_path, std::strerror(err));
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    std::error_code ec2;
    fs::remove(tmp, ec2);
    fail_user("cannot write '{}': {}", out_path, ec.message());
  }
}

}  // namespace ingot::codegen
