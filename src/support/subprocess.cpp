// Child processes with a time limit (see subprocess.h).
#include "support/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace ingot {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ChildResult run_child(std::vector<std::string> args, const std::string& log, double timeout_s) {
  ChildResult r;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.error = fmt::format("cannot start {}: {}", args[0], std::strerror(rc));
    return r;
  }
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > timeout_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      r.error = fmt::format("timed out after {:.0f} s", timeout_s);
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.out = read_file(log);
  if (WIFSIGNALED(status)) {
    r.error = fmt::format("crashed (signal {})", WTERMSIG(status));
  } else if (WEXITSTATUS(status) != 0) {
    r.error = fmt::format("exit {}: {}", WEXITSTATUS(status), r.out.substr(0, r.out.find('\n')));
  }
  return r;
}

std::string find_program(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  for (const std::string& name : names) {
    if (name.empty()) continue;
    if (name.find('/') != std::string::npos) {
      if (access(name.c_str(), X_OK) == 0) return name;
      continue;
    }
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      std::string p = (dir.empty() ? "." : dir) + "/" + name;
      if (access(p.c_str(), X_OK) == 0) return p;
    }
  }
  return "";
}

}  // namespace ingot
