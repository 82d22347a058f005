// Running a child program and waiting for it with a time limit (the tuner's measurement runs,
// the C compiler of the c target). No shell: the arguments go to the program as they are.
#pragma once

#include <string>
#include <vector>

namespace ingot {

// A finished child: its exit status and what it printed, or why it did not finish.
struct ChildResult {
  std::string error;  // "" when it exited with status 0, else one line saying how it ended
  std::string out;    // its stdout and stderr together
};

// Runs `args` (args[0] the program: a path, or a name looked up in PATH) with stdout and stderr
// into the file `log`, killed past `timeout_s` seconds.
ChildResult run_child(std::vector<std::string> args, const std::string& log, double timeout_s);

// The first of `names` found as an executable in PATH (or as a path when it has a '/'), "" if
// none.
std::string find_program(const std::vector<std::string>& names);

}  // namespace ingot
