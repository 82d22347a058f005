// One place that turns an exception escaping a command into its one-line message and exit status:
// user errors exit 1, internal errors 2 (labelled as bugs, never assertion text for users).
// main.cpp prints to stderr; `ingot run --batch` prints each line's error to stdout.
#pragma once

#include <cstdio>
#include <exception>

namespace ingot::cli {

// Prints "error: ..." for the exception in `e` to `out`; returns the exit status it stands for.
int report_error(std::exception_ptr e, std::FILE* out);

}  // namespace ingot::cli
