// Runs the `ingot` binary (INGOT_CLI_PATH, or $INGOT_CLI when set) and captures its exit code,
// stdout and stderr; a per-test temporary directory and a Python/NumPy runner for checks.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ingot::testing {

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ingot_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string cli() {
    const char* env = std::getenv("INGOT_CLI");
    return env && *env ? env : INGOT_CLI_PATH;
  }
  CommandResult ingot(const std::string& args) {
    std::string cmd = "'" + cli() + "' " + args + " >'" + (dir_ / "stdout").string() + "' 2>'" +
                      (dir_ / "stderr").string() + "'";
    int status = std::system(cmd.c_str());
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return {code, read_text(dir_ / "stdout"), read_text(dir_ / "stderr")};
  }
  // Runs Python with numpy as np and `d` the test directory; 0 when its asserts pass.
  int python(const std::string& body) {
    std::ofstream(dir_ / "script.py")
        << "import numpy as np, json, sys\nd = '" << dir_.string() << "'\n"
        << body << "\n";
    return std::system(("python3 '" + (dir_ / "script.py").string() + "'").c_str());
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string artifact(const std::string& name) {
    return std::string(INGOT_FAKE_ARTIFACT_DIR) + "/" + name + ".so";
  }

  std::filesystem::path dir_;
};

}  // namespace ingot::testing
