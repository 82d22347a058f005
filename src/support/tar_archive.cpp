// Tar writing and reading with libarchive (see tar_archive.h).
#include "support/tar_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "support/error.h"

namespace ingot {
namespace {

using ArchivePtr = std::unique_ptr<archive, int (*)(archive*)>;

}  // namespace

void write_tar(const std::string& path, const ArchiveFiles& files) {
  namespace fs = std::filesystem;
  fs::path out(path);
  if (out.filename().empty()) fail_user("cannot write '{}': not a file name", path);
  fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
  std::string tmp = (dir / ("." + out.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmp.data());
  if (fd < 0) fail_user("cannot write '{}': {}", path, std::strerror(errno));
  std::string error;
  {
    ArchivePtr a(archive_write_new(), archive_write_free);
    archive_write_set_format_pax_restricted(a.get());
    if (archive_write_open_fd(a.get(), fd) != ARCHIVE_OK) error = archive_error_string(a.get());
    for (size_t i = 0; error.empty() && i < files.size(); ++i) {
      const auto& [name, bytes] = files[i];
      std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(),
                                                                 archive_entry_free);
      archive_entry_set_pathname(e.get(), name.c_str());
      archive_entry_set_size(e.get(), la_int64_t(bytes.size()));
      archive_entry_set_filetype(e.get(), AE_IFREG);
      archive_entry_set_perm(e.get(), 0644);
      archive_entry_set_mtime(e.get(), 0, 0);  // reproducible archives
      if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK ||
          archive_write_data(a.get(), bytes.data(), bytes.size()) != la_ssize_t(bytes.size()))
        error = archive_error_string(a.get());
    }
    if (error.empty() && archive_write_close(a.get()) != ARCHIVE_OK)
      error = archive_error_string(a.get());
  }
  close(fd);
  std::error_code ec;
  if (error.empty()) fs::rename(tmp, out, ec);
  if (!error.empty() || ec) {
    fs::remove(tmp, ec);
    fail_user("cannot write '{}': {}", path, error.empty() ? ec.message() : error);
  }
}

ArchiveFiles read_tar(const std::string& path, size_t max_member_bytes) {
  ArchivePtr a(archive_read_new(), archive_read_free);
  archive_read_support_format_tar(a.get());
  archive_read_support_filter_all(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
    fail_user("cannot read '{}': {}", path, archive_error_string(a.get()));
  ArchiveFiles files;
  archive_entry* e = nullptr;
  for (;;) {
    int r = archive_read_next_header(a.get(), &e);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) fail_user("cannot read '{}': {}", path, archive_error_string(a.get()));
    if (archive_entry_filetype(e) != AE_IFREG) continue;
    std::string name = archive_entry_pathname(e);
    la_int64_t size = archive_entry_size(e);
    if (size < 0 || size_t(size) > max_member_bytes)
      fail_user("cannot read '{}': member '{}' is too large", path, name);
    std::string bytes;
    char buf[1 << 16];
    for (;;) {
      la_ssize_t n = archive_read_data(a.get(), buf, sizeof(buf));
      if (n < 0) fail_user("cannot read '{}': {}", path, archive_error_string(a.get()));
      if (n == 0) break;
      if (bytes.size() + size_t(n) > max_member_bytes)
        fail_user("cannot read '{}': member '{}' is too large", path, name);
      bytes.append(buf, size_t(n));
    }
    files.emplace_back(std::move(name), std::move(bytes));
  }
  return files;
}

bool looks_like_tar(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char magic[5] = {};
  f.seekg(257);
  return f.read(magic, 5) && std::memcmp(magic, "ustar", 5) == 0;
}

}  // namespace ingot
