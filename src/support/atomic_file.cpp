// Atomic whole-file writes (see atomic_file.h).
#include "support/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "support/error.h"

namespace ingot {

void write_file_atomic(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  if (target.filename().empty()) fail_user("cannot write '{}': not a file name", path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmp.data());
  if (fd < 0) fail_user("cannot write '{}': {}", path, std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  int err = done == content.size() ? 0 : errno;
  fchmod(fd, 0644);  // mkstemp makes 0600; a report is for reading
  if (::close(fd) != 0 && err == 0) err = errno;
  std::error_code ec;
  if (err == 0) fs::rename(tmp, target, ec);
  if (err != 0 || ec) {
    fs::remove(tmp, ec);
    fail_user("cannot write '{}': {}", path, err ? std::strerror(err) : ec.message());
  }
}

}  // namespace ingot
