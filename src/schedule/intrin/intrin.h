// Tensor intrinsics for tensorize: a description (what a tile computes, in block form) and an
// implementation (how the target computes it), looked up by name. The table holds intrinsics
// registered at run time; names of the FMA micro-kernel family (x86 and NEON, x86_fma.h) and of
// the dequantizing one (dequant_fma.h) are built on first use, so a trace naming one replays in a
// fresh process.
#pragma once

#include <memory>
#include <string>

#include "tir/prim_func.h"

namespace ingot::schedule {

struct TensorIntrin {
  std::string name;
  // Block form: a chain of loops (from 0, constant extents) around one BlockRealize binding its
  // iter vars to the loop vars in order; the block has no init. Its params are tile views.
  tir::PrimFunc desc;
  // Same params as desc; its body computes the tile and may allocate local buffers. Accesses to
  // the params are relative to the tile origin (tensorize adds each access's offsets).
  tir::PrimFunc impl;
};

// Adds (or replaces) an intrinsic by name. A holder of the replaced one keeps it alive.
void register_tensor_intrin(TensorIntrin intrin);
// The intrinsic of that name, or null. Shared, so that a later registration under the same name
// (from another thread or schedule) cannot free what the caller is reading.
std::shared_ptr<const TensorIntrin> find_tensor_intrin(const std::string& name);

}  // namespace ingot::schedule
