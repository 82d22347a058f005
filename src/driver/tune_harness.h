// The one-kernel artifact a tuning candidate is measured in: kernel k of a lowered model alone,
// its constants copied from the model, the parameters it writes as outputs and the others as
// inputs (the runtime fills those with fixed-seed random values).
#pragma once

#include "tir/module.h"

namespace ingot::driver {

// The harness module of kernel k of `model` (kernels[0] is replaced by each candidate).
tir::IRModule harness_for(const tir::IRModule& model, int k);

}  // namespace ingot::driver
