// link_shared_library with LLD's ELF driver in-process. The object and a version script (which
// exports only the artifact symbol) go to a private temp directory; LLD writes a temp file next
// to the destination which is renamed into place only when the link succeeded.
#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "codegen/link.h"
#include "ingot/abi.h"
#include "support/error.h"

LLD_HAS_DRIVER(elf)

namespace ingot::codegen {
namespace {

namespace fs = std::filesystem;

// A scratch directory removed with everything in it when this goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ingot-link-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      fail_user("cannot create a temporary directory in '{}': {}",
                fs::temp_directory_path().string(), std::strerror(errno));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path& p, const void* data, size_t size) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), std::streamsize(size));
  if (!f) fail_user("cannot write '{}'", p.string());
}

// libm of the target on this machine, so the artifact gets DT_NEEDED libm.so.6 ("" if none).
std::string find_libm(const Target& target) {
  llvm::Triple t(target.triple);
  if (!t.isOSLinux()) return "";
  std::string multiarch = t.getArchName().str() + "-linux-gnu";
  for (const std::string& dir : {"/lib/" + multiarch, "/usr/lib/" + multiarch,
                                 std::string("/lib64"), std::string("/usr/lib64")}) {
    fs::path p = fs::path(dir) / "libm.so.6";
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return "";
}

std::mutex& lld_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void link_shared_library(const std::vector<uint8_t>& object, const Target& target,
                         const std::string& out_path) {
  fs::path out(out_path);
  if (out.filename().empty()) fail_user("cannot write '{}': not a file name", out_path);
  fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");

  TempDir scratch;
  fs::path obj = scratch.path / "model.o";
  fs::path script = scratch.path / "exports.map";
  write_file(obj, object.data(), object.size());
  std::string map = std::string("{\n  global: ") + INGOT_ARTIFACT_SYMBOL + ";\n  local: *;\n};\n";
  write_file(script, map.data(), map.size());

  std::string tmp = (dir / ("." + out.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmp.data());
  if (fd < 0) fail_user("cannot write '{}': {}", out_path, std::strerror(errno));
  close(fd);

  std::string soname = out.filename().string();
  std::string libm = find_libm(target);
  std::string obj_s = obj.string(), script_s = script.string();
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
                                   "--hash-style=gnu",
                                   obj_s.c_str()};
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
  fs::rename(tmp, out, ec);
  if (ec) {
    std::error_code ec2;
    fs::remove(tmp, ec2);
    fail_user("cannot write '{}': {}", out_path, ec.message());
  }
}

}  // namespace ingot::codegen
