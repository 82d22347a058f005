// Artifact integrity: every artifact ends with a checksum trailer that the runtime verifies before
// mapping the file. A flipped bit anywhere (program headers, code, record, the trailer), a file
// cut short or grown, and a trailer of another ABI version are each refused with one error;
// INGOT_LOAD_SKIP_CHECKSUM skips only the hash.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ingot/runtime.h"
#include "runtime/fake_artifacts.h"

namespace {

using ingot::testing::fake_artifact;
using ingot::testing::load_error;
using ingot::testing::temp_file;
namespace fs = std::filesystem;

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A copy of the fake_affine artifact, changed by `edit`.
template <typename Edit>
fs::path edited_copy(const std::string& name, Edit edit) {
  std::vector<uint8_t> bytes = read_bytes(fake_artifact("fake_affine"));
  edit(bytes);
  fs::path p = temp_file(name);
  write_bytes(p, bytes);
  return p;
}

IngotArtifactTrailer trailer_of(const std::vector<uint8_t>& bytes) {
  IngotArtifactTrailer t;
  std::memcpy(&t, bytes.data() + bytes.size() - sizeof(t), sizeof(t));
  return t;
}

void set_trailer(std::vector<uint8_t>& bytes, const IngotArtifactTrailer& t) {
  std::memcpy(bytes.data() + bytes.size() - sizeof(t), &t, sizeof(t));
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(ArtifactIntegrity, SealedArtifactCarriesItsTrailer) {
  std::vector<uint8_t> bytes = read_bytes(fake_artifact("fake_affine"));
  ASSERT_GT(bytes.size(), sizeof(IngotArtifactTrailer));
  IngotArtifactTrailer t = trailer_of(bytes);
  EXPECT_EQ(t.magic, INGOT_TRAILER_MAGIC);
  EXPECT_EQ(t.abi_version, INGOT_ABI_VERSION);
  EXPECT_EQ(t.checksum_kind, INGOT_CHECKSUM_XXH3_64);
  EXPECT_EQ(t.payload_bytes, bytes.size() - sizeof(t));
}

TEST(ArtifactIntegrity, FlippedBitInProgramHeadersIsRefused) {
  fs::path p = edited_copy("phdr_flip.so", [](std::vector<uint8_t>& b) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, b.data(), sizeof(eh));
    b[eh.e_phoff + offsetof(Elf64_Phdr, p_flags)] ^= 0x4;  // PF_R of the first segment
  });
  std::string msg = load_error(p.string());
  EXPECT_TRUE(starts_with(msg, "artifact '" + p.string() + "' is corrupt: checksum 0x")) << msg;
  EXPECT_NE(msg.find("differs from the 0x"), std::string::npos) << msg;
}

TEST(ArtifactIntegrity, FlippedBitAnywhereIsRefused) {
  const size_t size = read_bytes(fake_artifact("fake_affine")).size();
  for (size_t k = 1; k < 24; ++k) {
    size_t offset = 64 + (size - 64 - sizeof(IngotArtifactTrailer)) * k / 24;
    fs::path p = edited_copy("flip.so", [&](std::vector<uint8_t>& b) { b[offset] ^= 0x10; });
    std::string msg = load_error(p.string());
    // Headers may already fail the ELF check (a segment past the end); all else fails the hash.
    EXPECT_TRUE(msg.find("is corrupt: checksum") != std::string::npos ||
                msg.find("truncated or corrupt") != std::string::npos)
        << "offset " << offset << ": " << msg;
  }
}

TEST(ArtifactIntegrity, FlippedBitInTheRecordedChecksumIsRefused) {
  fs::path p = edited_copy("sum_flip.so", [](std::vector<uint8_t>& b) {
    IngotArtifactTrailer t = trailer_of(b);
    t.checksum ^= 1;
    set_trailer(b, t);
  });
  EXPECT_TRUE(starts_with(load_error(p.string()), "artifact '" + p.string() + "' is corrupt"));
}

TEST(ArtifactIntegrity, OtherVersionIsRefusedBeforeMapping) {
  fs::path p = edited_copy("v4.so", [](std::vector<uint8_t>& b) {
    IngotArtifactTrailer t = trailer_of(b);
    t.abi_version = 4;
    set_trailer(b, t);
  });
  EXPECT_EQ(load_error(p.string()), "artifact '" + p.string() +
                                        "' was built for ingot ABI version 4, this runtime "
                                        "supports version 9");
}

TEST(ArtifactIntegrity, GrownFileIsRefused) {
  fs::path tail = edited_copy("grown.so", [](std::vector<uint8_t>& b) { b.push_back(0); });
  EXPECT_TRUE(starts_with(load_error(tail.string()),
                          "artifact '" + tail.string() + "' has no ingot checksum trailer"));
  // Grown by a copy of its own trailer: the recorded size gives it away.
  fs::path twice = edited_copy("trailer_twice.so", [](std::vector<uint8_t>& b) {
    std::vector<uint8_t> t(b.end() - sizeof(IngotArtifactTrailer), b.end());
    b.insert(b.end(), t.begin(), t.end());
  });
  std::string msg = load_error(twice.string());
  EXPECT_NE(msg.find("is corrupt: its trailer records"), std::string::npos) << msg;
}

TEST(ArtifactIntegrity, SkipChecksumSkipsOnlyTheHash) {
  fs::path p = edited_copy("skip.so", [](std::vector<uint8_t>& b) {
    IngotArtifactTrailer t = trailer_of(b);
    t.checksum ^= 1;
    set_trailer(b, t);
  });
  IngotModel* model = nullptr;
  ASSERT_EQ(ingot_model_load_ex(p.c_str(), INGOT_LOAD_SKIP_CHECKSUM, &model), INGOT_OK)
      << ingot_last_error();
  EXPECT_EQ(ingot_model_num_inputs(model), 2);
  ingot_model_free(model);
  fs::path v4 = edited_copy("skip_v4.so", [](std::vector<uint8_t>& b) {
    IngotArtifactTrailer t = trailer_of(b);
    t.abi_version = 4;
    set_trailer(b, t);
  });
  EXPECT_EQ(ingot_model_load_ex(v4.c_str(), INGOT_LOAD_SKIP_CHECKSUM, &model), INGOT_ERR_LOAD);
  EXPECT_EQ(model, nullptr);
}

TEST(ArtifactIntegrity, UnknownLoadFlagsAreRefused) {
  IngotModel* model = nullptr;
  EXPECT_EQ(ingot_model_load_ex(fake_artifact("fake_affine").c_str(), 0x80, &model),
            INGOT_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ingot_last_error(), "ingot_model_load_ex: unknown flags 0x80");
}

}  // namespace
