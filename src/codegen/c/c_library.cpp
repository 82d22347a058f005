// The `c` target's shared library (see c_library.h).
#include "codegen/c/c_library.h"

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "codegen/c/object_size.h"
#include "codegen/link.h"
#include "codegen/llvm/codegen_llvm.h"
#include "support/error.h"
#include "support/subprocess.h"

namespace ingot::codegen {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f.write(text.data(), std::streamsize(text.size()));
  if (!f) fail_user("cannot write '{}'", path);
}

}  // namespace

bool references_got(const std::string& object) {
  for (const std::string& s : elf_undefined_symbols(object))
    if (s == "_GLOBAL_OFFSET_TABLE_") return true;
  return false;
}

std::string host_c_compiler() {
  std::vector<std::string> names;
  for (const char* env : {"INGOT_CC", "CC"})
    if (const char* v = std::getenv(env); v != nullptr && *v != '\0') names.emplace_back(v);
  names.insert(names.end(), {"cc", "gcc", "clang"});
  std::string cc = find_program(names);
  if (cc.empty())
    fail_user(
        "--target c needs a C compiler to build a shared library: none of $INGOT_CC, $CC, cc, gcc, "
        "clang was found (or use --output-format mlf)");
  return cc;
}

const std::vector<std::string>& c_build_flags() {
  static const std::vector<std::string> flags = {"-std=c99",
                                                 "-O3",
                                                 "-fno-strict-aliasing",
                                                 "-fPIC",
                                                 "-fvisibility=hidden",
                                                 "-fno-stack-protector",
                                                 "-DINGOT_HIDDEN_SYMBOLS"};
  return flags;
}

void compile_c_file(const std::string& file, const std::string& text, const std::string& compiler,
                    const std::vector<std::string>& flags, const std::string& dir,
                    const std::string& object_path) {
  write_text(dir + "/" + file, text);
  std::vector<std::string> args = {compiler};
  args.insert(args.end(), flags.begin(), flags.end());
  args.insert(args.end(), {"-I", dir, "-c", dir + "/" + file, "-o", object_path});
  ChildResult r = run_child(args, object_path + ".log", 1800);
  if (!r.error.empty()) {
    // The first diagnostic line names the problem; the whole log is long.
    std::string first;
    for (size_t at = 0; at < r.out.size();) {
      size_t nl = r.out.find('\n', at);
      std::string l = r.out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      if (l.find("error") != std::string::npos) {
        first = l;
        break;
      }
      if (nl == std::string::npos) break;
      at = nl + 1;
    }
    fail_user("the C compiler '{}' failed on {}: {}", compiler, file,
              first.empty() ? r.error : first);
  }
}

BuildStats build_c_shared_library(const tir::IRModule& module, const Target& target,
                                  const std::string& out_path,
                                  const std::function<void(const std::string&)>& before_link) {
  if (!target.c_flags.empty())
    fail_user(
        "--target '{}': a shared library is built for this machine, so the target takes no C "
        "compiler options (use --output-format mlf for another CPU)",
        target.str());
  BuildStats stats;
  ScratchDir scratch;
  auto t0 = Clock::now();
  CModelSource source = print_c_model(module, c_model_name(module.model_name), false);
  std::string object = scratch.file("model.o");
  write_text(scratch.file(source.header_file), source.header);
  compile_c_file(source.source_file, source.source, host_c_compiler(), c_build_flags(),
                 scratch.path(), object);
  if (references_got(object))
    fail_internal(
        "the C compiler's object references _GLOBAL_OFFSET_TABLE_, which an in-process LLD link "
        "cannot take (c_library.h); the model's symbols must be hidden (INGOT_HIDDEN_SYMBOLS)");
  std::vector<std::string> objects = emit_c_artifact_record_objects(
      module, source.run_arrays_symbol, source.constants_symbol, target.str(), scratch);
  objects.insert(objects.begin(), object);
  if (before_link) before_link(object);
  stats.codegen_ms = ms_since(t0);
  t0 = Clock::now();
  link_object_files(objects, Target::host(), out_path);
  stats.link_ms = ms_since(t0);
  stats.objects = int(objects.size());
  stats.threads = 1;
  return stats;
}

}  // namespace ingot::codegen
