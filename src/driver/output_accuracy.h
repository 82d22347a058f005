// The accuracy report of weight-only quantization (--quantize-weights with --accuracy-inputs):
// two artifacts of one model (the float32 reference and the quantized one) run through the
// runtime on the same inputs (.npz by input name), and each float output's error relative to
// the reference: max |q - f| / max |f| and mean |q - f| / mean |f|.
#pragma once

#include <string>
#include <vector>

namespace ingot::driver {

struct OutputError {
  std::string name;
  double max_rel = 0, mean_rel = 0;
};

// UserError naming the file or input on a bad .npz (a missing input, a dtype or shape the
// artifacts refuse).
std::vector<OutputError> compare_outputs(const std::string& reference_artifact,
                                         const std::string& candidate_artifact,
                                         const std::string& inputs_npz);

}  // namespace ingot::driver
