// Shared by the fuzz targets: an input as a file (a memfd, named by its /proc/self/fd path, for
// readers that take paths), and the rule for exceptions: a UserError is the expected answer to a
// bad input; anything else (an InternalError, a stray exception) is a finding and aborts.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "support/error.h"

namespace ingot::fuzz {

class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) {
    fd_ = memfd_create("fuzz_input", 0);
    if (fd_ < 0) std::abort();
    for (size_t done = 0; done < size;) {
      ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { ::close(fd_); }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// Runs fn; returns normally for success or a UserError, aborts for anything else.
template <typename Fn>
void expect_user_errors_only(Fn fn) {
  try {
    fn();
  } catch (const UserError&) {
  } catch (const InternalError& e) {
    std::fprintf(stderr, "internal error on a fuzzed input: %s\n", e.what());
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception on a fuzzed input: %s\n", e.what());
    std::abort();
  }
}

}  // namespace ingot::fuzz
