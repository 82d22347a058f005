// NumPy .npy arrays in memory: the array record shared with .npz I/O, dtype descriptors
// ('<f4', '|b1', ...) mapped to DLPack type codes, and parsing/serializing the .npy format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ingot {

struct NpyArray {
  std::string name;            // member name without ".npy"
  std::string dtype;           // canonical numpy descr: "<f4", "<i8", "|b1", "|u1", "<f2", ...
  std::vector<int64_t> shape;  // C order
  std::vector<uint8_t> data;   // dense row-major, little-endian

  int64_t num_elements() const;
};

// An element type as DLPack spells it (code: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool).
struct NpyElementType {
  uint8_t code;
  uint8_t bits;
  bool operator==(const NpyElementType&) const = default;
};

// The element type of a numpy descr ('<f4', '=i8', '|u1', '|b1', '?'; '<V2' / '|V2' is bfloat16,
// as numpy with ml_dtypes saves it), or nullopt when unsupported (big-endian, structured,
// complex, strings, ...).
std::optional<NpyElementType> npy_element_type(const std::string& descr);
// The canonical descr of an element type ("<f4"), or "" when numpy has no such type.
std::string npy_descr(NpyElementType type);
// Bytes per element of a supported descr (0 when unsupported).
size_t npy_item_size(const std::string& descr);
// numpy's name of a descr for messages: "float32", "int64", "bool".
std::string npy_dtype_name(const std::string& descr);
// Element `k` of dense little-endian data of this element type as a double (bool 0 / 1), or
// nullopt for a type not compared as numbers.
std::optional<double> npy_element(NpyElementType type, const uint8_t* data, int64_t k);

// Parses a complete .npy file image. `where` names it in errors, e.g. "member 'x.npy' of 'in.npz'".
// Throws UserError on bad magic, unsupported version/dtype, fortran_order True, or a size mismatch.
NpyArray parse_npy(const std::string& where, const uint8_t* bytes, size_t size);

// Serializes to the .npy format (version 1.0, or 2.0 when the header needs it).
std::vector<uint8_t> serialize_npy(const NpyArray& array);

}  // namespace ingot
