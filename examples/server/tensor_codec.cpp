// Tensor codec of the inference server: KServe v2 JSON and raw bodies in, JSON out, and the
// checks of a decoded .npy body against the model (see tensor_codec.h; the .npy format itself is
// npy_codec.cpp). Little-endian hosts only (x86-64, aarch64), as the runtime.
#include "tensor_codec.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <system_error>

#include "dtype_table.h"
#include "npy_codec.h"

namespace ingot::server {

static_assert(std::endian::native == std::endian::little, "the codec assumes a little-endian host");

namespace {

using nlohmann::json;

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string quote_name(const std::string& s) {
  return "'" + s + "'";
}

// ---- 16-bit floats (round to nearest even) ----

uint16_t float_to_half(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // Inf or NaN (NaN stays quiet NaN)
    return static_cast<uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to Inf
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // < half the smallest subnormal
    uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
    int shift = 126 - static_cast<int>(abs >> 23);  // 14..24 for these exponents
    uint32_t half = mant >> shift;
    uint32_t rest = mant & ((1u << shift) - 1u);
    uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  uint32_t rest = abs & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t x;
  if (exp == 0x1F) {
    x = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112u) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {  // subnormal: normalise
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    x = sign | ((112u - static_cast<uint32_t>(e)) << 23) | ((mant & 0x3FFu) << 13);
  }
  return std::bit_cast<float>(x);
}

uint16_t float_to_bf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // NaN
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float bf16_to_float(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// ---- JSON elements ----

template <typename T>
void store(char* dst, T v) {
  std::memcpy(dst, &v, sizeof(T));
}
template <typename T>
T load(const char* src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  return v;
}

// A JSON number (or "NaN", "Infinity", "-Infinity") as a double; false when it is neither.
bool json_float(const json& j, double* out) {
  if (j.is_number()) {
    *out = j.get<double>();
    return true;
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "NaN" || s == "nan") {
      *out = std::numeric_limits<double>::quiet_NaN();
    } else if (s == "Infinity" || s == "inf") {
      *out = std::numeric_limits<double>::infinity();
    } else if (s == "-Infinity" || s == "-inf") {
      *out = -std::numeric_limits<double>::infinity();
    } else {
      return false;
    }
    return true;
  }
  return false;
}

// A JSON integer (or an integral float below 2^53) in [lo, hi]; false otherwise.
bool json_int(const json& j, int64_t lo, uint64_t hi, int64_t* s, uint64_t* u) {
  if (j.is_number_unsigned()) {
    uint64_t v = j.get<uint64_t>();
    if (v > hi) return false;
    *u = v;
    *s = static_cast<int64_t>(v);
    return true;
  }
  int64_t v;
  if (j.is_number_integer()) {
    v = j.get<int64_t>();
  } else if (j.is_number_float()) {
    double d = j.get<double>();
    if (!(std::fabs(d) < 9007199254740992.0) || d != std::trunc(d)) return false;
    v = static_cast<int64_t>(d);
  } else {
    return false;
  }
  if (v < lo || (v > 0 && static_cast<uint64_t>(v) > hi)) return false;
  *s = v;
  *u = static_cast<uint64_t>(v);
  return true;
}

struct IntRange {
  int64_t lo;
  uint64_t hi;
};

IntRange int_range(Kind k) {
  switch (k) {
    case Kind::kI8:
      return {INT8_MIN, INT8_MAX};
    case Kind::kI16:
      return {INT16_MIN, INT16_MAX};
    case Kind::kI32:
      return {INT32_MIN, INT32_MAX};
    case Kind::kI64:
      return {INT64_MIN, INT64_MAX};
    case Kind::kU8:
      return {0, UINT8_MAX};
    case Kind::kU16:
      return {0, UINT16_MAX};
    case Kind::kU32:
      return {0, UINT32_MAX};
    case Kind::kU64:
      return {0, UINT64_MAX};
    default:
      return {0, 0};
  }
}

// Writes element `i` of input `name` from `j` at dst; throws CodecError when it does not fit.
void encode_element(const KindInfo& k, const json& j, char* dst, size_t i,
                    const std::string& name) {
  auto bad = [&](const char* what) {
    throw CodecError("input " + quote_name(name) + ": element " + std::to_string(i) + " (" +
                     dump(j) + ") is not " + what);
  };
  switch (k.kind) {
    case Kind::kF16:
    case Kind::kBF16:
    case Kind::kF32:
    case Kind::kF64: {
      double d;
      if (!json_float(j, &d)) bad("a number");
      if (k.kind == Kind::kF64) {
        store<double>(dst, d);
      } else if (k.kind == Kind::kF32) {
        store<float>(dst, static_cast<float>(d));
      } else if (k.kind == Kind::kF16) {
        store<uint16_t>(dst, float_to_half(static_cast<float>(d)));
      } else {
        store<uint16_t>(dst, float_to_bf16(static_cast<float>(d)));
      }
      return;
    }
    case Kind::kBool: {
      if (j.is_boolean()) {
        store<uint8_t>(dst, j.get<bool>() ? 1 : 0);
        return;
      }
      int64_t s;
      uint64_t u;
      if (!json_int(j, 0, 1, &s, &u)) bad("a boolean (true, false, 0 or 1)");
      store<uint8_t>(dst, static_cast<uint8_t>(u));
      return;
    }
    default: {
      IntRange r = int_range(k.kind);
      int64_t s;
      uint64_t u;
      if (!json_int(j, r.lo, r.hi, &s, &u)) {
        bad((std::string("an integer in the range of ") + k.kserve).c_str());
      }
      switch (k.bits) {
        case 8:
          store<uint8_t>(dst, static_cast<uint8_t>(u));
          break;
        case 16:
          store<uint16_t>(dst, static_cast<uint16_t>(u));
          break;
        case 32:
          store<uint32_t>(dst, static_cast<uint32_t>(u));
          break;
        default:
          store<uint64_t>(dst, u);
          break;
      }
      return;
    }
  }
}

// Flattens `data` (a list, possibly nested) into `out` row-major; false past `limit` elements.
constexpr int kMaxNesting = 64;
bool flatten(const json& data, std::vector<const json*>& out, size_t limit, int depth) {
  if (depth > kMaxNesting) throw CodecError("'data' is nested more than 64 levels deep");
  for (const json& e : data) {
    if (e.is_array()) {
      if (!flatten(e, out, limit, depth + 1)) return false;
    } else {
      if (out.size() == limit) return false;
      out.push_back(&e);
    }
  }
  return true;
}

size_t count_leaves(const json& data, int depth) {
  if (depth > kMaxNesting) throw CodecError("'data' is nested more than 64 levels deep");
  size_t n = 0;
  for (const json& e : data) n += e.is_array() ? count_leaves(e, depth + 1) : 1;
  return n;
}

std::string describe(const IngotTensorInfo& info) {
  std::string dt = kserve_datatype(info.dtype);
  return (dt.empty() ? "?" : dt) + " " + shape_string(info.shape, info.ndim);
}

const KindInfo& kind_for_input(const IngotTensorInfo& info) {
  const KindInfo* k = kind_of(info.dtype);
  if (k == nullptr) {
    char buf[48];
    throw CodecError("input " + quote_name(info.name) + " has element type " +
                     ingot_dtype_name(info.dtype, buf, sizeof(buf)) +
                     ", which this server cannot carry");
  }
  return *k;
}

std::string input_names(const rt::Model& model) {
  std::string s;
  for (int i = 0; i < model.num_inputs(); ++i) {
    s += (i ? ", " : "") + quote_name(model.input_info(i).name);
  }
  return s;
}

const IngotTensorInfo& single_input(const rt::Model& model, const char* body_kind) {
  if (model.num_inputs() != 1) {
    throw CodecError(std::string(body_kind) + " bodies carry the one input of a single-input " +
                     "model; this model has " + std::to_string(model.num_inputs()) + " inputs (" +
                     input_names(model) + "): send JSON");
  }
  return model.input_info(0);
}

// ---- number formatting ----

void append_float(std::string& out, float f) {
  if (std::isnan(f)) {
    out += "NaN";
    return;
  }
  if (std::isinf(f)) {
    out += f > 0 ? "Infinity" : "-Infinity";
    return;
  }
  char buf[64];
  // The shortest digits that parse back to f as a float; kept when they also do so through a
  // double (as JSON parsers read numbers), else the double's shortest digits (exact for f).
  auto r = std::to_chars(buf, buf + sizeof(buf), f);
  double d = 0;
  auto p = std::from_chars(buf, r.ptr, d);
  if (p.ec != std::errc() ||
      std::bit_cast<uint32_t>(static_cast<float>(d)) != std::bit_cast<uint32_t>(f)) {
    r = std::to_chars(buf, buf + sizeof(buf), static_cast<double>(f));
  }
  out.append(buf, r.ptr);
}

void append_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

template <typename T>
void append_int(std::string& out, T v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}

}  // namespace

std::string kserve_datatype(IngotDType dtype) {
  const KindInfo* k = kind_of(dtype);
  return k ? k->kserve : "";
}

size_t dtype_bytes(IngotDType dtype) {
  return (static_cast<size_t>(dtype.bits) * dtype.lanes + 7) / 8;
}

size_t element_count(const IngotTensorInfo& info) {
  size_t n = 1;
  for (int i = 0; i < info.ndim; ++i) n *= static_cast<size_t>(info.shape[i]);
  return n;
}

size_t tensor_bytes(const IngotTensorInfo& info) {
  return element_count(info) * dtype_bytes(info.dtype);
}

std::string shape_string(const int64_t* shape, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

json tensor_metadata(const IngotTensorInfo& info) {
  std::string dt = kserve_datatype(info.dtype);
  if (dt.empty()) {
    char buf[48];
    dt = ingot_dtype_name(info.dtype, buf, sizeof(buf));
  }
  return {{"name", info.name},
          {"datatype", dt},
          {"shape", std::vector<int64_t>(info.shape, info.shape + info.ndim)}};
}

std::vector<InputData> decode_json_inputs(const json& request, const rt::Model& model) {
  if (!request.is_object()) throw CodecError("the request body must be a JSON object");
  auto it = request.find("inputs");
  if (it == request.end() || !it->is_array()) {
    throw CodecError("the request needs an 'inputs' list");
  }
  std::vector<InputData> inputs;
  std::vector<bool> seen(static_cast<size_t>(model.num_inputs()), false);
  for (const json& in : *it) {
    if (!in.is_object()) throw CodecError("each entry of 'inputs' must be an object");
    auto name_it = in.find("name");
    if (name_it == in.end() || !name_it->is_string()) {
      throw CodecError("each entry of 'inputs' needs a 'name' string");
    }
    const std::string& name = name_it->get_ref<const std::string&>();
    int index = model.find_input(name);
    if (index < 0) {
      throw CodecError("model has no input " + quote_name(name) +
                       " (its inputs: " + input_names(model) + ")");
    }
    if (seen[static_cast<size_t>(index)])
      throw CodecError("input " + quote_name(name) + " is given twice");
    seen[static_cast<size_t>(index)] = true;
    const IngotTensorInfo& info = model.input_info(index);
    const KindInfo& k = kind_for_input(info);

    auto dt_it = in.find("datatype");
    if (dt_it == in.end() || !dt_it->is_string()) {
      throw CodecError("input " + quote_name(name) + " needs a 'datatype' string (" + k.kserve +
                       ")");
    }
    if (dt_it->get_ref<const std::string&>() != k.kserve) {
      throw CodecError("input " + quote_name(name) + ": datatype " + dump(*dt_it) +
                       ", the model expects \"" + k.kserve + "\"");
    }
    auto shape_it = in.find("shape");
    if (shape_it == in.end() || !shape_it->is_array()) {
      throw CodecError("input " + quote_name(name) + " needs a 'shape' list (" +
                       shape_string(info.shape, info.ndim) + ")");
    }
    bool shape_ok = shape_it->size() == static_cast<size_t>(info.ndim);
    for (size_t d = 0; shape_ok && d < shape_it->size(); ++d) {
      const json& v = (*shape_it)[d];
      shape_ok = v.is_number_integer() && v.get<int64_t>() == info.shape[d];
    }
    if (!shape_ok) {
      throw CodecError("input " + quote_name(name) + ": shape " + dump(*shape_it) +
                       " does not match the model's " + shape_string(info.shape, info.ndim));
    }
    auto data_it = in.find("data");
    if (data_it == in.end() || !data_it->is_array()) {
      throw CodecError("input " + quote_name(name) + " needs a 'data' list");
    }
    size_t count = element_count(info);
    std::vector<const json*> leaves;
    leaves.reserve(count);
    if (!flatten(*data_it, leaves, count, 0) || leaves.size() != count) {
      size_t got = count_leaves(*data_it, 0);
      throw CodecError("input " + quote_name(name) + ": 'data' has " + std::to_string(got) +
                       " values, shape " + shape_string(info.shape, info.ndim) + " needs " +
                       std::to_string(count));
    }
    InputData data;
    data.index = index;
    size_t elem = dtype_bytes(info.dtype);
    data.bytes.resize(count * elem);
    for (size_t i = 0; i < count; ++i)
      encode_element(k, *leaves[i], &data.bytes[i * elem], i, name);
    inputs.push_back(std::move(data));
  }
  for (int i = 0; i < model.num_inputs(); ++i) {
    if (!seen[static_cast<size_t>(i)]) {
      throw CodecError("missing input " + quote_name(model.input_info(i).name) + " (" +
                       describe(model.input_info(i)) + ")");
    }
  }
  return inputs;
}

std::vector<int> requested_outputs(const json& request, const rt::Model& model) {
  std::vector<int> out;
  auto it = request.is_object() ? request.find("outputs") : request.end();
  if (it == request.end()) {
    for (int i = 0; i < model.num_outputs(); ++i) out.push_back(i);
    return out;
  }
  if (!it->is_array()) throw CodecError("'outputs' must be a list of {\"name\": ...}");
  for (const json& o : *it) {
    auto name_it = o.is_object() ? o.find("name") : o.end();
    if (name_it == o.end() || !name_it->is_string()) {
      throw CodecError("each entry of 'outputs' needs a 'name' string");
    }
    int index = model.find_output(name_it->get<std::string>());
    if (index < 0) throw CodecError("model has no output " + dump(*name_it));
    out.push_back(index);
  }
  return out;
}

std::vector<InputData> decode_raw_input(std::string_view body, const rt::Model& model) {
  const IngotTensorInfo& info = single_input(model, "raw (application/octet-stream)");
  size_t want = tensor_bytes(info);
  if (body.size() != want) {
    throw CodecError("raw body has " + std::to_string(body.size()) + " bytes, input " +
                     quote_name(info.name) + " (" + describe(info) + ") needs " +
                     std::to_string(want));
  }
  return {InputData{0, std::string(body)}};
}

std::vector<InputData> decode_npy_input(std::string_view body, const rt::Model& model) {
  const IngotTensorInfo& info = single_input(model, ".npy (application/x-npy)");
  NpyView v = parse_npy(body);
  if (v.dtype.code != info.dtype.code || v.dtype.bits != info.dtype.bits || info.dtype.lanes != 1) {
    throw CodecError("input " + quote_name(info.name) + ": .npy datatype " +
                     kserve_datatype(v.dtype) + ", the model expects " + describe(info));
  }
  int ndim = static_cast<int>(v.shape.size());
  bool shape_ok = ndim == info.ndim;
  for (int i = 0; shape_ok && i < ndim; ++i) shape_ok = v.shape[i] == info.shape[i];
  if (!shape_ok) {
    throw CodecError("input " + quote_name(info.name) + ": shape " +
                     shape_string(v.shape.data(), ndim) + " does not match the model's " +
                     shape_string(info.shape, info.ndim));
  }
  return {InputData{0, std::string(v.data)}};
}

void append_json_output(std::string& out, const OutputData& o) {
  const IngotTensorInfo& info = *o.info;
  const KindInfo* k = kind_of(info.dtype);
  if (k == nullptr) {
    char buf[48];
    throw CodecError(std::string("output '") + info.name + "' has element type " +
                     ingot_dtype_name(info.dtype, buf, sizeof(buf)) +
                     ", which this server cannot carry");
  }
  out += "{\"name\":";
  out += dump(json(info.name));
  out += ",\"datatype\":\"";
  out += k->kserve;
  out += "\",\"shape\":";
  out += shape_string(info.shape, info.ndim);
  out += ",\"data\":[";
  size_t n = element_count(info);
  size_t elem = dtype_bytes(info.dtype);
  const char* p = o.bytes.data();
  for (size_t i = 0; i < n; ++i, p += elem) {
    if (i) out += ',';
    switch (k->kind) {
      case Kind::kF16:
        append_float(out, half_to_float(load<uint16_t>(p)));
        break;
      case Kind::kBF16:
        append_float(out, bf16_to_float(load<uint16_t>(p)));
        break;
      case Kind::kF32:
        append_float(out, load<float>(p));
        break;
      case Kind::kF64:
        append_double(out, load<double>(p));
        break;
      case Kind::kI8:
        append_int(out, load<int8_t>(p));
        break;
      case Kind::kI16:
        append_int(out, load<int16_t>(p));
        break;
      case Kind::kI32:
        append_int(out, load<int32_t>(p));
        break;
      case Kind::kI64:
        append_int(out, load<int64_t>(p));
        break;
      case Kind::kU8:
        append_int(out, load<uint8_t>(p));
        break;
      case Kind::kU16:
        append_int(out, load<uint16_t>(p));
        break;
      case Kind::kU32:
        append_int(out, load<uint32_t>(p));
        break;
      case Kind::kU64:
        append_int(out, load<uint64_t>(p));
        break;
      case Kind::kBool:
        out += load<uint8_t>(p) ? "true" : "false";
        break;
    }
  }
  out += "]}";
}

}  // namespace ingot::server
