// NVRTC through dlopen (see nvrtc.h).
#include "codegen/gpu/nvrtc.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <regex>
#include <sstream>

#include "support/error.h"

namespace ingot::codegen {
namespace {

using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

struct Nvrtc {
  bool ok = false;
  std::string error;
  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
};

const Nvrtc& nvrtc() {
  static Nvrtc n;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* env = std::getenv("INGOT_NVRTC_LIBRARY");
    std::vector<std::string> names;
    if (env && *env)
      names = {env};
    else
      names = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
               "/usr/local/cuda/lib64/libnvrtc.so"};
    void* h = nullptr;
    std::string why;
    for (const std::string& name : names) {
      h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h != nullptr) break;
      const char* e = dlerror();
      if (why.empty() && e) why = e;
    }
    if (h == nullptr) {
      n.error = "cannot open NVRTC (" + (env && *env ? std::string(env) : "libnvrtc.so") + ": " +
                why + "); install the CUDA toolkit or set INGOT_NVRTC_LIBRARY";
      return;
    }
    auto sym = [&](auto& fn, const char* name) {
      *reinterpret_cast<void**>(&fn) = dlsym(h, name);
      if (fn == nullptr && n.error.empty()) n.error = std::string("NVRTC has no ") + name;
    };
    sym(n.GetErrorString, "nvrtcGetErrorString");
    sym(n.Version, "nvrtcVersion");
    sym(n.CreateProgram, "nvrtcCreateProgram");
    sym(n.CompileProgram, "nvrtcCompileProgram");
    sym(n.GetPTXSize, "nvrtcGetPTXSize");
    sym(n.GetPTX, "nvrtcGetPTX");
    sym(n.GetCUBINSize, "nvrtcGetCUBINSize");
    sym(n.GetCUBIN, "nvrtcGetCUBIN");
    sym(n.GetProgramLogSize, "nvrtcGetProgramLogSize");
    sym(n.GetProgramLog, "nvrtcGetProgramLog");
    sym(n.DestroyProgram, "nvrtcDestroyProgram");
    n.ok = n.error.empty();
  });
  return n;
}

// ptxas -v: "Compiling entry function 'f' for 'sm_80'", then "Function properties for f",
// "N bytes stack frame, S bytes spill stores, L bytes spill loads", "Used R registers, ...".
std::map<std::string, NvrtcOutput::Kernel> parse_ptxas_log(const std::string& log) {
  std::map<std::string, NvrtcOutput::Kernel> out;
  std::regex entry(R"(Compiling entry function '([A-Za-z0-9_]+)')");
  std::regex spill(R"((\d+) bytes spill stores, (\d+) bytes spill loads)");
  std::regex regs(R"(Used (\d+) registers)");
  std::istringstream in(log);
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry)) {
      current = m[1];
      out[current];
    } else if (!current.empty() && std::regex_search(line, m, spill)) {
      out[current].spill_bytes = std::stoi(m[1]) + std::stoi(m[2]);
    } else if (!current.empty() && std::regex_search(line, m, regs)) {
      out[current].registers = std::stoi(m[1]);
    }
  }
  return out;
}

}  // namespace

std::string nvrtc_version() {
  const Nvrtc& n = nvrtc();
  int major = 0, minor = 0;
  if (!n.ok || n.Version(&major, &minor) != 0) return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

NvrtcOutput compile_cuda(const std::string& source, const std::string& name,
                         const std::string& arch) {
  const Nvrtc& n = nvrtc();
  if (!n.ok) fail_user("--target cuda: {}", n.error);
  nvrtcProgram prog = nullptr;
  nvrtcResult r =
      n.CreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
  if (r != 0) fail_user("--target cuda: NVRTC cannot create the program: {}", n.GetErrorString(r));
  std::string arch_option = "--gpu-architecture=" + arch;
  const char* options[] = {arch_option.c_str(), "--std=c++17", "--ptxas-options=-v",
                           "-default-device"};
  r = n.CompileProgram(prog, 4, options);
  NvrtcOutput out;
  size_t size = 0;
  n.GetProgramLogSize(prog, &size);
  out.log.resize(size);
  if (size) n.GetProgramLog(prog, out.log.data());
  while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
  if (r != 0) {
    std::string first = out.log.substr(0, out.log.find('\n', out.log.find("error")));
    n.DestroyProgram(&prog);
    fail_user("--target cuda: NVRTC cannot compile the kernels for {}: {}: {}", arch,
              n.GetErrorString(r), first.substr(0, 600));
  }
  n.GetPTXSize(prog, &size);
  out.ptx.resize(size);
  n.GetPTX(prog, out.ptx.data());
  while (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  n.GetCUBINSize(prog, &size);
  out.cubin.resize(size);
  if (size) n.GetCUBIN(prog, reinterpret_cast<char*>(out.cubin.data()));
  n.DestroyProgram(&prog);
  out.kernels = parse_ptxas_log(out.log);
  return out;
}

}  // namespace ingot::codegen
