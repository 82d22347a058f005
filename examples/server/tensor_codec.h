// Tensor codec of the inference server: request bodies (KServe v2 JSON, raw little-endian bytes,
// .npy) decoded into the model's input buffers, and outputs encoded as JSON or .npy. Every check
// is against the model's own input signature and fails with a one-line CodecError (a 400 reply).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingot/runtime.hpp"

namespace ingot::server {

// A request that does not fit the model (the reply is 400 with this message).
class CodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// KServe v2 datatype name of an element type ("FP32", "INT64", "BOOL", ...), or "" when the
// protocol has none for it (vector lanes, unknown codes).
std::string kserve_datatype(IngotDType dtype);
// Bytes of one element.
size_t dtype_bytes(IngotDType dtype);
// Elements of a tensor of this signature (its shape is static).
size_t element_count(const IngotTensorInfo& info);
size_t tensor_bytes(const IngotTensorInfo& info);
// "[1,3,32,32]".
std::string shape_string(const int64_t* shape, int ndim);
// {"name": ..., "datatype": ..., "shape": [...]} for the metadata endpoint.
nlohmann::json tensor_metadata(const IngotTensorInfo& info);

// The bytes of one model input, ready for Session::set_input_copy.
struct InputData {
  int index = -1;
  std::string bytes;  // dense row-major, the input's dtype, little-endian
};

// Decodes a KServe v2 JSON request body ({"inputs": [{"name", "shape", "datatype", "data"}]})
// for `model`: every input exactly once, each with the model's datatype and shape, `data` a flat
// (or nested) list of the right length. `request` is the parsed body.
std::vector<InputData> decode_json_inputs(const nlohmann::json& request, const rt::Model& model);
// The output indices a JSON request asks for ("outputs": [{"name"}]); all outputs when absent.
std::vector<int> requested_outputs(const nlohmann::json& request, const rt::Model& model);
// Decodes a raw body: the dense little-endian bytes of the one input of a single-input model.
std::vector<InputData> decode_raw_input(std::string_view body, const rt::Model& model);
// Decodes a .npy body (format 1.0-3.0, C order, the input's dtype and shape) into the one input
// of a single-input model.
std::vector<InputData> decode_npy_input(std::string_view body, const rt::Model& model);

// One output copied out of a session, for encoding after the session is released.
struct OutputData {
  const IngotTensorInfo* info = nullptr;  // owned by the model version the request ran on
  std::string bytes;
};
// Appends {"name","datatype","shape","data"} of `out` to `json`. Floats are written so that they
// parse back to the same bits (as float or as double then rounded to float); NaN and infinities
// are written as the tokens NaN, Infinity and -Infinity (as Python's json module does).
void append_json_output(std::string& json, const OutputData& out);

}  // namespace ingot::server
