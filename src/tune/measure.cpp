// One candidate measured by a child `ingot run` process (see measure.h).
#include "tune/measure.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "support/error.h"
#include "support/npz.h"

extern char** environ;

namespace ingot::tune {

namespace {

// The min of `ingot run --print-time`: the line after "Execution time summary:" holds the
// column names, the next one mean, median, max, min, std in ms.
double min_ms(const std::string& out) {
  size_t at = out.find("Execution time summary:");
  if (at == std::string::npos) return -1;
  std::istringstream in(out.substr(at));
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  double mean = 0, median = 0, max = 0, min = -1;
  if (std::getline(in, line)) std::istringstream(line) >> mean >> median >> max >> min;
  return min;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Measurement measure_artifact(const std::string& artifact, const std::string& outputs,
                             const MeasureOptions& o) {
  Measurement m;
  m.outputs = outputs;
  std::string log = outputs + ".log";
  std::vector<std::string> args = {o.ingot,    "run",
                                   artifact,   "--outputs",
                                   outputs,    "--print-time",
                                   "--repeat", std::to_string(o.repeat),
                                   "--number", std::to_string(o.number)};
  if (o.threads > 0) args.insert(args.end(), {"--num-threads", std::to_string(o.threads)});
  if (o.cache_flush) args.push_back("--cache-flush");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, o.ingot.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    m.error = fmt::format("cannot start {}: {}", o.ingot, std::strerror(rc));
    return m;
  }
  auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s > o.timeout_s) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      m.error = fmt::format("timed out after {:.0f} s", o.timeout_s);
      return m;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::string out = read_file(log);
  if (WIFSIGNALED(status)) {
    m.error = fmt::format("crashed (signal {})", WTERMSIG(status));
  } else if (WEXITSTATUS(status) != 0) {
    std::string first = out.substr(0, out.find('\n'));
    m.error = fmt::format("exit {}: {}", WEXITSTATUS(status), first);
  } else {
    double ms = min_ms(out);
    if (ms > 0) {
      m.seconds = ms * 1e-3;
    } else {
      m.error = "no time in the run's output";
    }
  }
  return m;
}

double max_relative_difference(const std::string& a_npz, const std::string& b_npz) {
  constexpr double kMismatch = std::numeric_limits<double>::infinity();
  std::vector<NpyArray> a = read_npz(a_npz), b = read_npz(b_npz);
  if (a.size() != b.size()) return kMismatch;
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].name != b[k].name || a[k].shape != b[k].shape || a[k].dtype != b[k].dtype ||
        a[k].dtype != "<f4")
      return kMismatch;
    size_t n = a[k].data.size() / 4;
    std::vector<float> x(n), y(n);
    std::memcpy(x.data(), a[k].data.data(), n * 4);
    std::memcpy(y.data(), b[k].data.data(), n * 4);
    for (size_t i = 0; i < n; ++i) {
      double d = std::fabs(double(x[i]) - double(y[i])) / (1.0 + std::fabs(double(y[i])));
      if (!(d <= worst)) worst = std::isnan(d) ? kMismatch : d;
    }
  }
  return worst;
}

}  // namespace ingot::tune
