// The server's .npy codec (numpy format 1.0-3.0, C order, little-endian): a strict parser of
// request bodies, which names what is malformed, and the writer of .npy replies.
#include <string>
#include <string_view>
#include <vector>

#include "dtype_table.h"
#include "npy_codec.h"
#include "tensor_codec.h"

namespace ingot::server {
namespace {

// ---- .npy header ----

// The dict of a .npy header: {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }
class NpyHeaderParser {
 public:
  explicit NpyHeaderParser(std::string_view s) : s_(s) {}

  void parse(std::string* descr, bool* fortran, std::vector<int64_t>* shape) {
    bool have_descr = false, have_fortran = false, have_shape = false;
    skip_ws();
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') {
        ++pos_;
        break;
      }
      std::string key = string_literal();
      skip_ws();
      expect(':');
      skip_ws();
      if (key == "descr" && !have_descr) {
        *descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order" && !have_fortran) {
        *fortran = boolean();
        have_fortran = true;
      } else if (key == "shape" && !have_shape) {
        *shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected or repeated key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != '}') {
        fail("expected ',' or '}'");
      }
    }
    skip_ws();
    if (pos_ != s_.size()) fail("trailing characters after the header dict");
    if (!have_descr || !have_fortran || !have_shape) {
      fail("the header dict needs 'descr', 'fortran_order' and 'shape'");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw CodecError("malformed .npy header at byte " + std::to_string(pos_) + ": " + what);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string");
    size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != q) {
      char c = s_[pos_];
      if (c == '\\' || static_cast<unsigned char>(c) < 0x20 ||
          static_cast<unsigned char>(c) > 0x7E) {
        fail("unsupported character in a string");
      }
      if (pos_ - start > 64) fail("string longer than 64 characters");
      ++pos_;
    }
    if (pos_ >= s_.size()) fail("unterminated string");
    std::string out(s_.substr(start, pos_ - start));
    ++pos_;
    return out;
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<int64_t> tuple() {
    std::vector<int64_t> dims;
    expect('(');
    for (;;) {
      skip_ws();
      if (peek() == ')') {
        ++pos_;
        return dims;
      }
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer dimension");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (int64_t{1} << 56)) fail("dimension too large");
        v = v * 10 + (peek() - '0');
        ++pos_;
      }
      if (peek() == 'L') ++pos_;  // Python 2 long
      if (dims.size() >= 32) fail("more than 32 dimensions");
      dims.push_back(v);
      skip_ws();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in the shape");
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

uint32_t le32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | static_cast<uint32_t>(u[1]) << 8 |
         static_cast<uint32_t>(u[2]) << 16 | static_cast<uint32_t>(u[3]) << 24;
}

}  // namespace

NpyView parse_npy(std::string_view b) {
  if (b.size() < 10 || b.substr(0, 6) != std::string_view("\x93NUMPY", 6)) {
    throw CodecError("malformed .npy: the body does not start with the \\x93NUMPY magic");
  }
  auto major = static_cast<unsigned char>(b[6]);
  auto minor = static_cast<unsigned char>(b[7]);
  size_t header_len, pos;
  if (major == 1) {
    header_len = static_cast<unsigned char>(b[8]) |
                 static_cast<size_t>(static_cast<unsigned char>(b[9])) << 8;
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw CodecError("malformed .npy: truncated header length");
    header_len = le32(b.data() + 8);
    pos = 12;
  } else {
    throw CodecError("unsupported .npy format version " + std::to_string(major) + "." +
                     std::to_string(minor));
  }
  if (header_len > b.size() - pos) {
    throw CodecError("malformed .npy: header length " + std::to_string(header_len) +
                     " runs past the end of the body (" + std::to_string(b.size()) + " bytes)");
  }
  std::string descr;
  bool fortran = false;
  NpyView v;
  NpyHeaderParser(b.substr(pos, header_len)).parse(&descr, &fortran, &v.shape);
  if (fortran) throw CodecError("unsupported .npy: fortran_order True (send C order)");

  std::string_view d = descr;
  char order = '|';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    order = d[0];
    d.remove_prefix(1);
  }
  if (d == "?") d = "b1";
  const KindInfo* kind = nullptr;
  for (const KindInfo& k : kKinds)
    if (*k.npy != '\0' && d == k.npy) kind = &k;
  if (kind == nullptr) throw CodecError("unsupported .npy dtype '" + descr + "'");
  if (order == '>' && kind->bits > 8) {
    throw CodecError("unsupported .npy dtype '" + descr + "': big-endian (send little-endian)");
  }
  v.dtype = IngotDType{kind->code, kind->bits, 1};
  size_t count = 1;
  for (int64_t dim : v.shape) {
    if (__builtin_mul_overflow(count, static_cast<size_t>(dim), &count)) {
      throw CodecError("malformed .npy: the shape's element count overflows");
    }
  }
  size_t bytes;
  if (__builtin_mul_overflow(count, dtype_bytes(v.dtype), &bytes)) {
    throw CodecError("malformed .npy: the shape's byte count overflows");
  }
  v.data = b.substr(pos + header_len);
  if (v.data.size() != bytes) {
    throw CodecError("malformed .npy: shape " +
                     shape_string(v.shape.data(), static_cast<int>(v.shape.size())) + " of '" +
                     descr + "' needs " + std::to_string(bytes) + " data bytes, the body has " +
                     std::to_string(v.data.size()));
  }
  return v;
}

std::string write_npy(IngotDType dtype, const int64_t* shape, int ndim, std::string_view data) {
  const KindInfo* k = kind_of(dtype);
  if (k == nullptr || *k->npy == '\0') {
    char buf[48];
    throw CodecError(std::string("element type ") + ingot_dtype_name(dtype, buf, sizeof(buf)) +
                     " has no .npy equivalent: ask for JSON");
  }
  std::string dict = std::string("{'descr': '") + (k->bits == 8 ? "|" : "<") + k->npy +
                     "', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < ndim; ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += ndim == 1 ? ",), }" : "), }";
  // Pad with spaces and a final newline so the data starts 64-byte aligned (as numpy does).
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xFF);
  out += static_cast<char>((dict.size() >> 8) & 0xFF);
  out += dict;
  out.append(data.data(), data.size());
  return out;
}

}  // namespace ingot::server
