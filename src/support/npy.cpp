// The .npy format: magic, version, a Python-dict header ('descr', 'fortran_order', 'shape')
// padded to 64 bytes, then the raw little-endian data.
#include "support/npy.h"

#include <cctype>
#include <cstring>

#include "support/bfloat16.h"
#include "support/error.h"
#include "support/half.h"

namespace ingot {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct DescrEntry {
  char kind;
  int bytes;
  NpyElementType type;
  const char* name;
};

constexpr DescrEntry kDescrs[] = {
    {'f', 2, {2, 16}, "float16"},
    {'f', 4, {2, 32}, "float32"},
    {'f', 8, {2, 64}, "float64"},
    {'i', 1, {0, 8}, "int8"},
    {'i', 2, {0, 16}, "int16"},
    {'i', 4, {0, 32}, "int32"},
    {'i', 8, {0, 64}, "int64"},
    {'u', 1, {1, 8}, "uint8"},
    {'u', 2, {1, 16}, "uint16"},
    {'u', 4, {1, 32}, "uint32"},
    {'u', 8, {1, 64}, "uint64"},
    {'b', 1, {6, 8}, "bool"},
    // bfloat16 as numpy with ml_dtypes saves it: its dtype's str, '<V2' (2-byte raw elements;
    // np.load gives '|V2', which `.view(ml_dtypes.bfloat16)` reads back)
    {'V', 2, {4, 16}, "bfloat16"},
};

const DescrEntry* find_descr(const std::string& descr) {
  std::string d = descr == "?" ? "|b1" : descr;
  if (d.size() < 3) return nullptr;
  char order = d[0];
  int bytes = 0;
  for (size_t i = 2; i < d.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(d[i]))) return nullptr;
    bytes = bytes * 10 + (d[i] - '0');
    if (bytes > 64) return nullptr;
  }
  for (const DescrEntry& e : kDescrs) {
    if (e.kind != d[1] || e.bytes != bytes) continue;
    bool little = order == '<' || order == '=' || order == '|';
    bool any_order = bytes == 1 && order == '>';
    return little || any_order ? &e : nullptr;
  }
  return nullptr;
}

// A tiny reader of the header dict: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }".
class HeaderParser {
 public:
  HeaderParser(const std::string& where, std::string text)
      : where_(where), text_(std::move(text)) {}

  NpyArray parse() {
    NpyArray a;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = parse_string();
      expect(':');
      if (key == "descr") {
        skip_space();
        if (peek() != '\'' && peek() != '"')
          fail("a structured dtype (only plain dtypes are supported)");
        a.dtype = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        std::string word = parse_word();
        if (word == "True")
          fail(
              "fortran_order True (only C-order arrays are supported; save "
              "np.ascontiguousarray(x))");
        if (word != "False") fail("fortran_order '" + word + "'");
        have_order = true;
      } else if (key == "shape") {
        a.shape = parse_shape();
        have_shape = true;
      } else {
        fail("unknown header key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++pos_;
    }
    if (!have_descr || !have_order || !have_shape)
      fail("a header without descr, fortran_order or shape");
    return a;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    fail_user("{}: unsupported .npy header: {}", where_, what);
  }
  char peek() { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("expected '{}' at offset {}", c, pos_));
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    char quote = peek();
    if (quote != '\'' && quote != '"') fail(fmt::format("expected a string at offset {}", pos_));
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail("an unterminated string");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  std::string parse_word() {
    skip_space();
    size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek()))) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::vector<int64_t> parse_shape() {
    std::vector<int64_t> shape;
    expect('(');
    while (true) {
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return shape;
      }
      std::string word = parse_word();
      if (!word.empty() && word.back() == 'L') word.pop_back();  // Python 2 longs
      if (word.empty() || word.size() > 18 ||
          word.find_first_not_of("0123456789") != std::string::npos) {
        fail("a shape entry '" + word + "'");
      }
      shape.push_back(std::stoll(word));
      skip_space();
      if (peek() == ',') ++pos_;
    }
  }

  const std::string& where_;
  std::string text_;
  size_t pos_ = 0;
};

uint32_t read_le(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

int64_t NpyArray::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::optional<NpyElementType> npy_element_type(const std::string& descr) {
  const DescrEntry* e = find_descr(descr);
  if (e == nullptr) return std::nullopt;
  return e->type;
}

std::string npy_descr(NpyElementType type) {
  for (const DescrEntry& e : kDescrs) {
    if (e.type == type) return fmt::format("{}{}{}", e.bytes == 1 ? '|' : '<', e.kind, e.bytes);
  }
  return "";
}

size_t npy_item_size(const std::string& descr) {
  const DescrEntry* e = find_descr(descr);
  return e ? static_cast<size_t>(e->bytes) : 0;
}

std::optional<double> npy_element(NpyElementType type, const uint8_t* data, int64_t k) {
  const uint8_t code = type.code, bits = type.bits;
  const uint8_t* p = data + static_cast<size_t>(k) * (bits / 8);
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  if (code == 2 && bits == 32) return get(float{});
  if (code == 2 && bits == 64) return get(double{});
  if (code == 2 && bits == 16) return half_bits_to_double(static_cast<uint16_t>(get(uint16_t{})));
  if (code == 4 && bits == 16)
    return bfloat16_bits_to_float(static_cast<uint16_t>(get(uint16_t{})));
  if (code == 0 && bits == 8) return get(int8_t{});
  if (code == 0 && bits == 16) return get(int16_t{});
  if (code == 0 && bits == 32) return get(int32_t{});
  if (code == 0 && bits == 64) return get(int64_t{});
  if (code == 1 && bits == 8) return get(uint8_t{});
  if (code == 1 && bits == 16) return get(uint16_t{});
  if (code == 1 && bits == 32) return get(uint32_t{});
  if (code == 1 && bits == 64) return get(uint64_t{});
  if (code == 6 && bits == 8) return p[0] != 0 ? 1.0 : 0.0;
  return std::nullopt;
}

std::string npy_dtype_name(const std::string& descr) {
  const DescrEntry* e = find_descr(descr);
  return e ? e->name : "'" + descr + "'";
}

NpyArray parse_npy(const std::string& where, const uint8_t* bytes, size_t size) {
  if (size < kMagicSize + 4 || std::memcmp(bytes, kMagic, kMagicSize) != 0) {
    fail_user("{}: not a .npy array (bad magic)", where);
  }
  uint8_t major = bytes[6];
  size_t len_bytes = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (len_bytes == 0)
    fail_user("{}: unsupported .npy format version {}.{}", where, major, bytes[7]);
  size_t header_start = 8 + len_bytes;
  if (size < header_start) fail_user("{}: truncated .npy header", where);
  size_t header_len = read_le(bytes + 8, static_cast<int>(len_bytes));
  if (header_len > size - header_start) fail_user("{}: truncated .npy header", where);
  std::string header(reinterpret_cast<const char*>(bytes + header_start), header_len);
  NpyArray a = HeaderParser(where, header).parse();
  const DescrEntry* e = find_descr(a.dtype);
  if (e == nullptr) fail_user("{}: unsupported dtype '{}'", where, a.dtype);
  a.dtype = npy_descr(e->type);
  size_t expected = static_cast<size_t>(e->bytes);
  for (int64_t d : a.shape) {
    if (d != 0 && expected > SIZE_MAX / static_cast<size_t>(d))
      fail_user("{}: shape too large", where);
    expected *= static_cast<size_t>(d);
  }
  size_t data_start = header_start + header_len;
  size_t got = size - data_start;
  if (got != expected) {
    fail_user("{}: data size mismatch: shape and dtype need {} bytes, got {}", where, expected,
              got);
  }
  a.data.assign(bytes + data_start, bytes + size);
  return a;
}

std::vector<uint8_t> serialize_npy(const NpyArray& array) {
  size_t item = npy_item_size(array.dtype);
  INGOT_ICHECK(item != 0, "unsupported npy dtype '{}' for '{}'", array.dtype, array.name);
  INGOT_ICHECK(array.data.size() == static_cast<size_t>(array.num_elements()) * item,
               "array '{}' has {} data bytes for {} elements of {}", array.name, array.data.size(),
               array.num_elements(), array.dtype);
  std::string shape;
  for (int64_t d : array.shape) shape += fmt::format("{}, ", d);
  if (array.shape.size() > 1) shape.resize(shape.size() - 2);  // (2, 3); a 1-d shape keeps "3,"
  if (array.shape.size() == 1) shape.pop_back();
  std::string dict =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", array.dtype, shape);
  bool v2 = dict.size() + 1 + 10 > 65535;
  size_t prefix = v2 ? 12 : 10;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict.push_back('\n');
  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  for (size_t i = 0; i < (v2 ? 4u : 2u); ++i)
    out.push_back(static_cast<uint8_t>(dict.size() >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

}  // namespace ingot
