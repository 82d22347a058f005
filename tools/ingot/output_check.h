// `ingot run --check ref.npz`: compares the session's outputs with reference arrays element by
// element (|got - want| <= atol + rtol * |want|, NaN matching NaN, integers and bools exactly) and
// prints one line per output: its largest difference, or how many elements differ, the worst
// one's index and both values.
#pragma once

#include <string>

#include "ingot/runtime.hpp"

namespace ingot::cli {

struct CheckTolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
};

// Returns the number of outputs that differ (0: all match). A reference naming no output of the
// model, or a file that cannot be read, is a user error.
int check_outputs(const std::string& ref_path, CheckTolerance tol, const rt::Session& session,
                  const rt::Model& model);

}  // namespace ingot::cli
