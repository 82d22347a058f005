// The per-axis parameters of a Resize whose roi, scales or sizes the caller gives at run time
// (ops::resize_reads_values): for each axis the node's `axes` names, its scale and output length
// as the ONNX reference computes them, as expressions over the inputs' values (or, where a
// constant was given, the node's per-axis attributes). The value function (lower/value_symbols)
// defines the output dims from them and the kernel (compute/resize.cpp) its coordinates, so the
// two agree by construction.
#pragma once

#include <functional>
#include <vector>

#include "graph/graph.h"
#include "tir/expr.h"

namespace ingot::lower {

// Element `j` of node input `slot` as float64 (the inputs are roi, scales and sizes).
using ResizeLoad = std::function<tir::Expr(int slot, int64_t j)>;

struct ResizeAxis {
  tir::Expr scale;   // float64: the reference's scale factor (sizes: the policy's)
  tir::Expr length;  // int64: the output length
  tir::Expr valid;   // the values make this axis well defined
};

// One entry per axis in the node's `axes`; `in` holds their input lengths (int64).
std::vector<ResizeAxis> resize_axes(const graph::Node& n, const std::vector<tir::Expr>& in,
                                    const ResizeLoad& load);

// roi's start and end for axis `j` of the node's `axes`, as float32 (tf_crop_and_resize only).
std::pair<tir::Expr, tir::Expr> resize_roi(const graph::Node& n, int64_t j, const ResizeLoad& load);

}  // namespace ingot::lower
