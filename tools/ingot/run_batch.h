// `ingot run --batch FILE`: many runs in one process, one per line of FILE ("-": standard input),
// each line the arguments of one `ingot run` (the artifact and its options). A test runner or CI
// job that runs hundreds of artifacts pays the process start and, for OpenCL, the device
// compiler's one-time start (PoCL's kernel library: ~0.7 s of a ~0.9 s first build) once.
#pragma once

#include <functional>
#include <string>

namespace ingot::cli {

// Runs `run_line` on every line of `path` ("-": stdin) that is not blank or a '#' comment, in
// order. A line's output goes to stdout, its error as one "error: ..." line there too, then the
// line "ingot-batch: LINE exit STATUS" (LINE counts the file's lines from 1), flushed, so that a
// caller feeding lines through a pipe reads one result at a time. Returns 0 when every run exited
// 0, else the largest status.
int run_batch(const std::string& path, const std::function<int(const std::string&)>& run_line);

}  // namespace ingot::cli
