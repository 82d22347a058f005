// TensorProto decoding: dtype mapping, raw_data, typed fields (float16/bool/int8/int16/uint8 in
// int32_data as ONNX stores them) and external data read lazily from a file next to the model.
#include "frontend/onnx/tensor_proto.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "support/error.h"

namespace ingot::frontend::detail {
namespace {

namespace fs = std::filesystem;
using graph::DType;

std::string shape_str(const std::vector<int64_t>& shape) {
  return "[" + fmt::format("{}", fmt::join(shape, ",")) + "]";
}

template <typename Dst, typename Field>
std::vector<uint8_t> pack(const Field& src) {
  std::vector<uint8_t> out(size_t(src.size()) * sizeof(Dst));
  for (int i = 0; i < src.size(); ++i) {
    Dst v = static_cast<Dst>(src.Get(i));
    std::memcpy(out.data() + size_t(i) * sizeof(Dst), &v, sizeof(Dst));
  }
  return out;
}

// Bytes from the typed field that ONNX uses for `dtype`; the element count is checked by the
// caller.
std::pair<std::vector<uint8_t>, int64_t> typed_bytes(const onnx::TensorProto& t, DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return {pack<float>(t.float_data()), t.float_data_size()};
    case DType::kF64:
      return {pack<double>(t.double_data()), t.double_data_size()};
    case DType::kI64:
      return {pack<int64_t>(t.int64_data()), t.int64_data_size()};
    case DType::kI32:
      return {pack<int32_t>(t.int32_data()), t.int32_data_size()};
    case DType::kI16:
      return {pack<int16_t>(t.int32_data()), t.int32_data_size()};
    case DType::kI8:
      return {pack<int8_t>(t.int32_data()), t.int32_data_size()};
    case DType::kU8:
      return {pack<uint8_t>(t.int32_data()), t.int32_data_size()};
    case DType::kU16:
      return {pack<uint16_t>(t.int32_data()), t.int32_data_size()};
    case DType::kU32:  // uint32 and uint64 live in uint64_data
      return {pack<uint32_t>(t.uint64_data()), t.uint64_data_size()};
    case DType::kU64:
      return {pack<uint64_t>(t.uint64_data()), t.uint64_data_size()};
    case DType::kF16:
    case DType::kBF16:  // the bits, one element per int32 (as float16)
      return {pack<uint16_t>(t.int32_data()), t.int32_data_size()};
    case DType::kBool: {
      std::vector<uint8_t> out;
      for (int32_t v : t.int32_data()) out.push_back(v != 0 ? 1 : 0);
      return {out, t.int32_data_size()};
    }
  }
  fail_internal("typed_bytes: unhandled dtype");
}

const char* typed_field_name(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "float_data";
    case DType::kF64:
      return "double_data";
    case DType::kI64:
      return "int64_data";
    case DType::kU32:
    case DType::kU64:
      return "uint64_data";
    default:
      return "int32_data";
  }
}

struct ExternalRef {
  fs::path file;
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
};

ExternalRef external_ref(const onnx::TensorProto& t, const std::string& what,
                         const std::string& model_dir) {
  ExternalRef ref;
  for (const auto& kv : t.external_data()) {
    try {
      if (kv.key() == "location")
        ref.location = kv.value();
      else if (kv.key() == "offset")
        ref.offset = std::stoll(kv.value());
      else if (kv.key() == "length")
        ref.length = std::stoll(kv.value());
    } catch (const std::exception&) {
      fail_user("{}: external data '{}' has a non-integer value '{}'", what, kv.key(), kv.value());
    }
  }
  if (ref.location.empty()) fail_user("{}: external data has no 'location'", what);
  fs::path loc(ref.location);
  bool escapes = loc.is_absolute();
  for (const auto& part : loc)
    if (part == "..") escapes = true;
  if (escapes)
    fail_user(
        "{}: external data location '{}' must be a relative path inside the model's directory",
        what, ref.location);
  if (ref.offset < 0 || ref.length < -1)
    fail_user("{}: external data has a negative offset or length", what);
  ref.file = (model_dir.empty() ? fs::path(".") : fs::path(model_dir)) / loc;
  return ref;
}

// Checks that `ref` holds `nbytes` bytes; throws a UserError naming the tensor and the file.
void check_external(const ExternalRef& ref, int64_t nbytes, const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(ref.file, ec))
    fail_user("{}: external data file '{}' does not exist", what, ref.file.string());
  if (ref.length >= 0 && ref.length != nbytes)
    fail_user("{}: external data length {} does not match the tensor's size of {} bytes", what,
              ref.length, nbytes);
  auto size = int64_t(fs::file_size(ref.file, ec));
  if (ec || size < ref.offset + nbytes)
    fail_user("{}: external data file '{}' is too short ({} bytes; need {} at offset {})", what,
              ref.file.string(), ec ? 0 : size, nbytes, ref.offset);
}

}  // namespace

std::optional<DType> dtype_from_onnx(int32_t code) {
  using TP = onnx::TensorProto;
  switch (code) {
    case TP::FLOAT:
      return DType::kF32;
    case TP::FLOAT16:
      return DType::kF16;
    case TP::BFLOAT16:
      return DType::kBF16;
    case TP::DOUBLE:
      return DType::kF64;
    case TP::INT8:
      return DType::kI8;
    case TP::INT16:
      return DType::kI16;
    case TP::INT32:
      return DType::kI32;
    case TP::INT64:
      return DType::kI64;
    case TP::UINT8:
      return DType::kU8;
    case TP::UINT16:
      return DType::kU16;
    case TP::UINT32:
      return DType::kU32;
    case TP::UINT64:
      return DType::kU64;
    case TP::BOOL:
      return DType::kBool;
    default:
      return std::nullopt;
  }
}

std::string onnx_dtype_name(int32_t code) {
  if (onnx::TensorProto_DataType_IsValid(code))
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(code));
  return fmt::format("data type {}", code);
}

graph::TensorPtr tensor_from_proto(const onnx::TensorProto& t, const std::string& what,
                                   const std::string& model_dir) {
  auto dtype = dtype_from_onnx(t.data_type());
  if (!dtype) fail_user("{} has unsupported dtype {}", what, onnx_dtype_name(t.data_type()));
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) fail_user("{} has a negative dimension in shape {}", what, shape_str(shape));
    if (d > 0 && count > (int64_t(1) << 48) / d)
      fail_user("{} is too large (shape {})", what, shape_str(shape));
    count *= d;
  }
  const int64_t nbytes = count * graph::dtype_bytes(*dtype);

  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    ExternalRef ref = external_ref(t, what, model_dir);
    check_external(ref, nbytes, what);
    auto loader = [ref, nbytes, what]() {
      check_external(ref, nbytes, what);  // the file may have changed since import
      std::ifstream in(ref.file, std::ios::binary);
      std::vector<uint8_t> bytes(static_cast<size_t>(nbytes));
      in.seekg(ref.offset);
      in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(nbytes));
      if (!in) fail_user("{}: cannot read external data file '{}'", what, ref.file.string());
      return bytes;
    };
    return std::make_shared<graph::Tensor>(*dtype, std::move(shape), std::move(loader));
  }
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (int64_t(raw.size()) != nbytes)
      fail_user("{} has {} bytes of raw_data; its shape {} and dtype {} need {}", what, raw.size(),
                shape_str(shape), graph::dtype_name(*dtype), nbytes);
    return std::make_shared<graph::Tensor>(*dtype, std::move(shape),
                                           std::vector<uint8_t>(raw.begin(), raw.end()));
  }
  auto [bytes, n] = typed_bytes(t, *dtype);
  if (n != count)
    fail_user("{} has {} values in {}; its shape {} needs {}", what, n, typed_field_name(*dtype),
              shape_str(shape), count);
  return std::make_shared<graph::Tensor>(*dtype, std::move(shape), std::move(bytes));
}

}  // namespace ingot::frontend::detail
