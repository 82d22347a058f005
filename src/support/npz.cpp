// .npz archives through libarchive: reading every `<name>.npy` member of a zip, and writing one
// atomically (temporary file in the same directory, then rename).
#include "support/npz.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <system_error>

#include "support/error.h"

namespace ingot {
namespace {

struct ReadArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};
struct WriteArchiveDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};

std::string archive_message(archive* a) {
  const char* msg = archive_error_string(a);
  return msg ? msg : "unknown archive error";
}

constexpr std::string_view kNpySuffix = ".npy";

}  // namespace

namespace {

// Reads every member of an opened archive; `source` names it in messages ("'x.npz'").
std::vector<NpyArray> read_members(archive* ar, const std::string& source) {
  std::vector<NpyArray> arrays;
  std::set<std::string> names;
  archive_entry* entry = nullptr;
  while (true) {
    int rc = archive_read_next_header(ar, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) {
      fail_user("{} is not a valid .npz (zip) file: {}", source, archive_message(ar));
    }
    const char* raw_name = archive_entry_pathname(entry);
    std::string member = raw_name ? raw_name : "";
    if (archive_entry_filetype(entry) == AE_IFDIR) continue;
    if (member.size() <= kNpySuffix.size() || !member.ends_with(kNpySuffix)) {
      fail_user("member '{}' of {} is not a .npy array", member, source);
    }
    std::string where = fmt::format("member '{}' of {}", member, source);
    std::vector<uint8_t> bytes;
    // The header's size is only a hint (a corrupt one may claim terabytes).
    if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > 0)
      bytes.reserve(static_cast<size_t>(std::min<la_int64_t>(archive_entry_size(entry), 1 << 26)));
    uint8_t buf[1 << 16];
    while (true) {
      la_ssize_t n = archive_read_data(ar, buf, sizeof(buf));
      if (n < 0) fail_user("{}: cannot read: {}", where, archive_message(ar));
      if (n == 0) break;
      bytes.insert(bytes.end(), buf, buf + n);
    }
    NpyArray a = parse_npy(where, bytes.data(), bytes.size());
    a.name = member.substr(0, member.size() - kNpySuffix.size());
    if (!names.insert(a.name).second) fail_user("{} has two arrays named '{}'", source, a.name);
    arrays.push_back(std::move(a));
  }
  return arrays;
}

std::unique_ptr<archive, ReadArchiveDeleter> zip_reader() {
  std::unique_ptr<archive, ReadArchiveDeleter> ar(archive_read_new());
  archive_read_support_format_zip(ar.get());
  return ar;
}

}  // namespace

std::vector<NpyArray> read_npz(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) fail_user("cannot open '{}': no such file", path);
  if (std::filesystem::is_directory(path, ec)) fail_user("cannot open '{}': is a directory", path);
  auto ar = zip_reader();
  std::string source = fmt::format("'{}'", path);
  if (archive_read_open_filename(ar.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    fail_user("{} is not a valid .npz (zip) file: {}", source, archive_message(ar.get()));
  }
  return read_members(ar.get(), source);
}

std::vector<NpyArray> read_npz_bytes(const void* data, size_t size, const std::string& source) {
  auto ar = zip_reader();
  if (archive_read_open_memory(ar.get(), data, size) != ARCHIVE_OK) {
    fail_user("{} is not a valid .npz (zip) file: {}", source, archive_message(ar.get()));
  }
  return read_members(ar.get(), source);
}

void write_npz(const std::string& path, const std::vector<NpyArray>& arrays) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  for (const NpyArray& a : arrays) {
    if (a.name.empty()) fail_user("cannot write '{}': an array has an empty name", path);
    if (!names.insert(a.name).second)
      fail_user("cannot write '{}': two arrays named '{}'", path, a.name);
  }
  fs::path target(path);
  fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on `"." + std::string`.
  std::string temp_name = ".";
  temp_name += target.filename().string();
  temp_name += ".tmp-XXXXXX";
  std::string tmpl = (dir / temp_name).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) fail_user("cannot write '{}': {}", path, std::strerror(errno));
  const std::string tmp = tmpl;
  auto fail_cleanup = [&](const std::string& why) {
    std::error_code ec;
    fs::remove(tmp, ec);
    fail_user("cannot write '{}': {}", path, why);
  };
  std::unique_ptr<archive, WriteArchiveDeleter> ar(archive_write_new());
  archive_write_set_format_zip(ar.get());
  archive_write_set_options(ar.get(), "zip:compression=store");
  if (archive_write_open_fd(ar.get(), fd) != ARCHIVE_OK) {
    close(fd);
    fail_cleanup(archive_message(ar.get()));
  }
  for (const NpyArray& a : arrays) {
    std::vector<uint8_t> bytes = serialize_npy(a);
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                   archive_entry_free);
    archive_entry_set_pathname(entry.get(), (a.name + std::string(kNpySuffix)).c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(bytes.size()));
    if (archive_write_header(ar.get(), entry.get()) != ARCHIVE_OK ||
        archive_write_data(ar.get(), bytes.data(), bytes.size()) !=
            static_cast<la_ssize_t>(bytes.size())) {
      std::string why = archive_message(ar.get());
      ar.reset();
      close(fd);
      fail_cleanup(why);
    }
  }
  bool closed = archive_write_close(ar.get()) == ARCHIVE_OK;
  std::string why = closed ? "" : archive_message(ar.get());
  ar.reset();
  if (fsync(fd) != 0 && closed) {
    closed = false;
    why = std::strerror(errno);
  }
  if (close(fd) != 0 && closed) {
    closed = false;
    why = std::strerror(errno);
  }
  if (!closed) fail_cleanup(why);
  std::error_code ec;
  fs::permissions(tmp,
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                      fs::perms::others_read,
                  ec);
  fs::rename(tmp, target, ec);
  if (ec) fail_cleanup(ec.message());
}

}  // namespace ingot
