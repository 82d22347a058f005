// .npz I/O checked against NumPy itself: files written by np.savez / np.savez_compressed /
// np.lib.format are read back with the values NumPy wrote, files we write are loaded and checked
// by NumPy, and malformed inputs give errors naming the file and member.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "support/error.h"
#include "support/npz.h"

namespace {

namespace fs = std::filesystem;
using ingot::NpyArray;

class NpzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ingot_npz_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs a Python snippet with numpy imported as np and `d` the test directory; returns its
  // exit status (0 when its asserts pass).
  int python(const std::string& body) {
    fs::path script = dir_ / "script.py";
    std::ofstream(script) << "import numpy as np, sys, zipfile, io\nd = '" << dir_.string() << "'\n"
                          << body << "\n";
    std::string cmd = "python3 '" + script.string() + "'";
    return std::system(cmd.c_str());
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  template <typename T>
  static std::vector<T> values(const NpyArray& a) {
    std::vector<T> v(a.data.size() / sizeof(T));
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
  }

  static std::string error_of(const std::string& p) {
    try {
      ingot::read_npz(p);
    } catch (const ingot::UserError& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

TEST_F(NpzTest, ReadsNumpySavez) {
  ASSERT_EQ(
      python("np.savez(d + '/a.npz', x=np.arange(6, dtype=np.float32).reshape(2, 3) / 4,\n"
             "  idx=np.array([-1, 2**40], dtype=np.int64), flag=np.array([True, False, True]),\n"
             "  u=np.array([[255]], dtype=np.uint8), h=np.array([1.5, -2], dtype=np.float16),\n"
             "  s=np.float64(3.25), e=np.zeros((0, 4), dtype=np.int32))"),
      0);
  std::vector<NpyArray> arrays = ingot::read_npz(path("a.npz"));
  ASSERT_EQ(arrays.size(), 7u);
  EXPECT_EQ(arrays[0].name, "x");
  EXPECT_EQ(arrays[0].dtype, "<f4");
  EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(arrays[0]), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1, 1.25f}));
  EXPECT_EQ(arrays[1].name, "idx");
  EXPECT_EQ(arrays[1].dtype, "<i8");
  EXPECT_EQ(values<int64_t>(arrays[1]), (std::vector<int64_t>{-1, int64_t{1} << 40}));
  EXPECT_EQ(arrays[2].dtype, "|b1");
  EXPECT_EQ(arrays[2].data, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(arrays[3].dtype, "|u1");
  EXPECT_EQ(arrays[3].shape, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(arrays[3].data, (std::vector<uint8_t>{255}));
  EXPECT_EQ(arrays[4].dtype, "<f2");
  EXPECT_EQ(values<uint16_t>(arrays[4]), (std::vector<uint16_t>{0x3E00, 0xC000}));
  EXPECT_EQ(arrays[5].name, "s");
  EXPECT_TRUE(arrays[5].shape.empty());
  EXPECT_EQ(values<double>(arrays[5]), (std::vector<double>{3.25}));
  EXPECT_EQ(arrays[6].shape, (std::vector<int64_t>{0, 4}));
  EXPECT_TRUE(arrays[6].data.empty());
}

TEST_F(NpzTest, ReadsSavezCompressedAndLargeArrays) {
  ASSERT_EQ(python("np.savez_compressed(d + '/c.npz', big=np.arange(300000, dtype=np.int32))"), 0);
  std::vector<NpyArray> arrays = ingot::read_npz(path("c.npz"));
  ASSERT_EQ(arrays.size(), 1u);
  std::vector<int32_t> v = values<int32_t>(arrays[0]);
  ASSERT_EQ(v.size(), 300000u);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[299999], 299999);
}

TEST_F(NpzTest, ReadsNpyFormatVersions2And3) {
  ASSERT_EQ(python("with zipfile.ZipFile(d + '/v.npz', 'w') as z:\n"
                   "  for name, ver in (('a', (2, 0)), ('b', (3, 0))):\n"
                   "    b = io.BytesIO(); np.lib.format.write_array(b, np.array([7, 8], np.int16), "
                   "version=ver)\n"
                   "    z.writestr(name + '.npy', b.getvalue())"),
            0);
  std::vector<NpyArray> arrays = ingot::read_npz(path("v.npz"));
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(values<int16_t>(arrays[0]), (std::vector<int16_t>{7, 8}));
  EXPECT_EQ(values<int16_t>(arrays[1]), (std::vector<int16_t>{7, 8}));
}

TEST_F(NpzTest, WrittenFileLoadsInNumpy) {
  NpyArray y{"y", "<f4", {2, 2}, {}};
  std::vector<float> yv{1.5f, -2, 0, 1e30f};
  y.data.resize(16);
  std::memcpy(y.data.data(), yv.data(), 16);
  NpyArray n{"count", "<i8", {1}, {}};
  int64_t nv = -5;
  n.data.resize(8);
  std::memcpy(n.data.data(), &nv, 8);
  NpyArray s{"scalar", "|b1", {}, {1}};
  NpyArray e{"empty", "<f8", {3, 0}, {}};
  ingot::write_npz(path("out.npz"), {y, n, s, e});
  EXPECT_EQ(
      python("z = np.load(d + '/out.npz')\n"
             "assert list(z.keys()) == ['y', 'count', 'scalar', 'empty'], list(z.keys())\n"
             "assert z['y'].dtype == np.float32 and z['y'].shape == (2, 2)\n"
             "assert (z['y'] == np.array([[1.5, -2], [0, 1e30]], np.float32)).all()\n"
             "assert z['count'].dtype == np.int64 and z['count'].tolist() == [-5]\n"
             "assert z['scalar'].dtype == np.bool_ and z['scalar'].shape == () and z['scalar']\n"
             "assert z['empty'].shape == (3, 0)"),
      0);
  std::vector<NpyArray> back = ingot::read_npz(path("out.npz"));
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[0].data, y.data);
  EXPECT_EQ(back[1].shape, n.shape);
  EXPECT_EQ(back[2].shape, s.shape);
  EXPECT_EQ(back[3].shape, e.shape);
}

TEST_F(NpzTest, WritesAlignedVersion1Headers) {
  NpyArray a{"five_d", "|u1", {1, 2, 1, 3, 1}, {1, 2, 3, 4, 5, 6}};
  ingot::write_npz(path("h.npz"), {a});
  EXPECT_EQ(python("import numpy.lib.format as f\n"
                   "b = io.BytesIO(zipfile.ZipFile(d + '/h.npz').read('five_d.npy'))\n"
                   "assert f.read_magic(b) == (1, 0)\n"
                   "shape, fortran, dtype = f.read_array_header_1_0(b)\n"
                   "assert b.tell() % 64 == 0, b.tell()\n"
                   "assert shape == (1, 2, 1, 3, 1) and not fortran and dtype == np.uint8\n"
                   "assert np.load(d + '/h.npz')['five_d'].ravel().tolist() == [1, 2, 3, 4, 5, 6]"),
            0);
}

TEST_F(NpzTest, WriteReplacesAtomicallyAndLeavesNoTempFiles) {
  NpyArray a{"a", "|u1", {1}, {1}};
  ingot::write_npz(path("o.npz"), {a});
  a.data = {2};
  ingot::write_npz(path("o.npz"), {a});
  EXPECT_EQ(ingot::read_npz(path("o.npz"))[0].data, (std::vector<uint8_t>{2}));
  int files = 0;
  for ([[maybe_unused]] auto& f : fs::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(NpzTest, FailedWriteLeavesOldFileUntouched) {
  NpyArray a{"a", "|u1", {1}, {1}};
  ingot::write_npz(path("o.npz"), {a});
  try {
    ingot::write_npz(path("o.npz"), {a, a});
    FAIL() << "expected an error";
  } catch (const ingot::UserError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write '" + path("o.npz") + "': two arrays named 'a'");
  }
  EXPECT_EQ(ingot::read_npz(path("o.npz"))[0].data, (std::vector<uint8_t>{1}));
}

TEST_F(NpzTest, WriteIntoMissingDirectoryFails) {
  NpyArray a{"a", "|u1", {1}, {1}};
  std::string p = path("no/such/dir/o.npz");
  try {
    ingot::write_npz(p, {a});
    FAIL() << "expected an error";
  } catch (const ingot::UserError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write '" + p + "': No such file or directory");
  }
}

TEST_F(NpzTest, MissingFile) {
  EXPECT_EQ(error_of(path("nope.npz")), "cannot open '" + path("nope.npz") + "': no such file");
}

TEST_F(NpzTest, NotAZipFile) {
  std::ofstream(path("t.npz")) << "hello, this is text\n";
  std::string msg = error_of(path("t.npz"));
  EXPECT_EQ(msg.rfind("'" + path("t.npz") + "' is not a valid .npz (zip) file: ", 0), 0u) << msg;
}

TEST_F(NpzTest, MemberThatIsNotNpy) {
  ASSERT_EQ(python("with zipfile.ZipFile(d + '/m.npz', 'w') as z: z.writestr('notes.txt', 'hi')"),
            0);
  EXPECT_EQ(error_of(path("m.npz")),
            "member 'notes.txt' of '" + path("m.npz") + "' is not a .npy array");
}

TEST_F(NpzTest, FortranOrderIsRejected) {
  ASSERT_EQ(python("np.savez(d + '/f.npz', w=np.asfortranarray(np.ones((2, 3), np.float32)))"), 0);
  EXPECT_EQ(error_of(path("f.npz")),
            "member 'w.npy' of '" + path("f.npz") +
                "': unsupported .npy header: fortran_order True (only C-order arrays are "
                "supported; save np.ascontiguousarray(x))");
}

TEST_F(NpzTest, BigEndianAndComplexAreRejected) {
  ASSERT_EQ(python("np.savez(d + '/b.npz', be=np.ones(2, dtype='>f4'))"), 0);
  EXPECT_EQ(error_of(path("b.npz")),
            "member 'be.npy' of '" + path("b.npz") + "': unsupported dtype '>f4'");
  ASSERT_EQ(python("np.savez(d + '/c.npz', c=np.ones(2, dtype=np.complex64))"), 0);
  EXPECT_EQ(error_of(path("c.npz")),
            "member 'c.npy' of '" + path("c.npz") + "': unsupported dtype '<c8'");
}

TEST_F(NpzTest, TruncatedMemberData) {
  ASSERT_EQ(
      python(
          "b = io.BytesIO(); np.save(b, np.arange(4, dtype=np.float32))\n"
          "with zipfile.ZipFile(d + '/t.npz', 'w') as z: z.writestr('x.npy', b.getvalue()[:-3])"),
      0);
  EXPECT_EQ(error_of(path("t.npz")),
            "member 'x.npy' of '" + path("t.npz") +
                "': data size mismatch: shape and dtype need 16 bytes, got 13");
}

TEST_F(NpzTest, BadNpyMagic) {
  ASSERT_EQ(python("with zipfile.ZipFile(d + '/g.npz', 'w') as z: z.writestr('x.npy', b'garbage "
                   "data here')"),
            0);
  EXPECT_EQ(error_of(path("g.npz")),
            "member 'x.npy' of '" + path("g.npz") + "': not a .npy array (bad magic)");
}

TEST(NpyDType, DescrMapping) {
  EXPECT_EQ(ingot::npy_element_type("<f4"), (ingot::NpyElementType{2, 32}));
  EXPECT_EQ(ingot::npy_element_type("=i8"), (ingot::NpyElementType{0, 64}));
  EXPECT_EQ(ingot::npy_element_type("|b1"), (ingot::NpyElementType{6, 8}));
  EXPECT_EQ(ingot::npy_element_type("|u1"), (ingot::NpyElementType{1, 8}));
  EXPECT_EQ(ingot::npy_element_type("<f2"), (ingot::NpyElementType{2, 16}));
  EXPECT_FALSE(ingot::npy_element_type(">i4").has_value());
  EXPECT_FALSE(ingot::npy_element_type("<c8").has_value());
  EXPECT_FALSE(ingot::npy_element_type("<U5").has_value());
  EXPECT_EQ(ingot::npy_descr({2, 64}), "<f8");
  EXPECT_EQ(ingot::npy_descr({0, 8}), "|i1");
  EXPECT_EQ(ingot::npy_descr({6, 8}), "|b1");
  // bfloat16: the raw 2-byte descr numpy with ml_dtypes writes; np.load gives '|V2' back
  EXPECT_EQ(ingot::npy_descr({4, 16}), "<V2");
  EXPECT_EQ(ingot::npy_element_type("<V2"), (ingot::NpyElementType{4, 16}));
  EXPECT_EQ(ingot::npy_element_type("|V2"), (ingot::NpyElementType{4, 16}));
  EXPECT_FALSE(ingot::npy_element_type("|V4").has_value());
  EXPECT_EQ(ingot::npy_dtype_name("<V2"), "bfloat16");
  EXPECT_EQ(ingot::npy_dtype_name("<i8"), "int64");
  EXPECT_EQ(ingot::npy_item_size("<f2"), 2u);
}

}  // namespace
