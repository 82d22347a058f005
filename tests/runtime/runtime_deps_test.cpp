// The runtime library's footprint: its shared object needs only the C runtime libraries (no
// C++ runtime, LLVM, protobuf, ONNX, fmt or spdlog), exports only ingot_* symbols, and stays
// small once stripped (the size is reported, and bounded at 128 KB, the bound README and
// docs/abi.md quote).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

TEST(RuntimeLibrary, NeedsOnlyTheCRuntime) {
  std::string dyn = run_command("readelf -d '" INGOT_RUNTIME_LIB "'");
  std::regex needed(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  std::set<std::string> allowed_prefixes = {"libc.so", "libm.so", "libdl.so", "libpthread.so",
                                            "ld-linux"};
#ifdef __SANITIZE_ADDRESS__
  // The sanitizer preset instruments the runtime too; its runtimes are not shipped dependencies.
  allowed_prefixes.insert({"libasan.so", "libubsan.so"});
#endif
#ifdef __SANITIZE_THREAD__
  allowed_prefixes.insert("libtsan.so");  // the tsan preset's, likewise
#endif
  int count = 0;
  for (std::sregex_iterator it(dyn.begin(), dyn.end(), needed), end; it != end; ++it) {
    std::string lib = (*it)[1];
    ++count;
    bool ok = false;
    for (const auto& p : allowed_prefixes) ok = ok || lib.rfind(p, 0) == 0;
    EXPECT_TRUE(ok) << "libingot_runtime.so needs " << lib;
  }
  EXPECT_GE(count, 1) << dyn;  // at least libc: proves readelf ran and parsed
}

TEST(RuntimeLibrary, ExportsOnlyIngotSymbols) {
  std::string syms = run_command("nm -D --defined-only '" INGOT_RUNTIME_LIB "' | awk '{print $3}'");
  std::istringstream in(syms);
  std::string s;
  int count = 0;
  while (std::getline(in, s)) {
    if (s.empty()) continue;
    ++count;
    EXPECT_EQ(s.rfind("ingot_", 0), 0u) << "unexpected exported symbol " << s;
  }
  EXPECT_GE(count, 10);
}

TEST(RuntimeLibrary, StrippedSizeIsSmall) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the size promise is the release build's; sanitizer builds are instrumented";
#endif
  std::filesystem::path copy = std::filesystem::temp_directory_path() /
                               ("ingot_runtime_stripped_" + std::to_string(getpid()) + ".so");
  std::string cmd = "strip -o '" + copy.string() + "' '" INGOT_RUNTIME_LIB "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto size = std::filesystem::file_size(copy);
  std::filesystem::remove(copy);
  std::printf("libingot_runtime.so stripped: %ju bytes\n", static_cast<uintmax_t>(size));
  RecordProperty("stripped_bytes", std::to_string(size));
  EXPECT_LT(size, 128u * 1024);  // README and docs/abi.md quote this bound
}

}  // namespace
