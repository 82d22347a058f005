// A whole model as portable C (the `c` target): the kernels and an ahead-of-time entry that
// calls them in order over one caller-provided workspace (TVM's `tvmgen_default_run` shape),
// its header, and the constants as a C array. Knows nothing of archives or compilers: the MLF
// writer (mlf_archive.h) and the shared-library build (c_library.h) take these texts.
//
// The header `<prefix>.h` declares, for a model whose C name is `m` (prefix "ingot_m"):
//   struct ingot_m_inputs  { <type>* <input>; ... };   one typed pointer per graph input
//   struct ingot_m_outputs { <type>* <output>; ... };
//   int32_t ingot_m_run(struct ingot_m_inputs*, struct ingot_m_outputs*, void* workspace);
//   int32_t ingot_m_run_arrays(void* const* inputs, void* const* outputs, void* workspace,
//                              ingot_m_hook begin, ingot_m_hook end, void* hook_context);
//   INGOT_M_WORKSPACE_SIZE, INGOT_M_CONSTANT_SIZE, INGOT_M_<INPUT|OUTPUT>_<NAME>_SIZE (bytes)
//   extern const uint8_t ingot_m_constants[];  (defined by the constants file)
// The workspace needs INGOT_M_WORKSPACE_SIZE bytes aligned to INGOT_M_WORKSPACE_ALIGNMENT.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tir/module.h"

namespace ingot::codegen {

struct CModelSource {
  std::string name;         // the model's C name ("m")
  std::string prefix;       // "ingot_m": every external symbol and the files start with it
  std::string macro;        // "INGOT_M": the header's macros start with it
  std::string header_file;  // "ingot_m.h"
  std::string header;
  std::string source_file;  // "ingot_m.c": kernels and the entry
  std::string source;
  std::string constants_file;  // "ingot_m_constants.c"
  std::string constants;
  std::string constants_symbol;                          // "ingot_m_constants"
  std::string run_arrays_symbol;                         // "ingot_m_run_arrays"
  std::vector<int64_t> kernel_stack_bytes;               // per kernel: its local arrays
  std::vector<std::string> input_fields, output_fields;  // struct member per tensor
};

// The workspace alignment the C entry asks of its caller (every offset in it is a multiple).
inline constexpr int kCWorkspaceAlignment = 16;

// `mod`'s kernels must be in loop form (after the loop passes). `name`: the model's C name
// (a C identifier; c_model_name gives one). `with_constants`: also print the constants file
// (an MLF; the shared library carries the blob as a data object instead).
CModelSource print_c_model(const tir::IRModule& mod, const std::string& name, bool with_constants);

// A C identifier for a model name, lower case ("torch-jit" -> "torch_jit"; "" -> "model").
std::string c_model_name(const std::string& model_name);

}  // namespace ingot::codegen
