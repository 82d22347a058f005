// The `ingot run --batch` loop (run_batch.h): lines in, one result line per run out.
#include "tools/ingot/run_batch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "support/error.h"
#include "tools/ingot/error_exit.h"

namespace ingot::cli {

int run_batch(const std::string& path, const std::function<int(const std::string&)>& run_line) {
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) fail_user("--batch: cannot read '{}'", path);
  }
  std::istream& in = path == "-" ? std::cin : file;
  int worst = 0;
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    int status = 0;
    try {
      status = run_line(line);
    } catch (...) {
      status = report_error(std::current_exception(), stdout);
    }
    fmt::print("ingot-batch: {} exit {}\n", number, status);
    std::fflush(stdout);
    worst = std::max(worst, status);
  }
  return worst;
}

}  // namespace ingot::cli
