// separate_resize: a float32 linear or cubic Resize of two or more axes becomes one Resize per
// axis, innermost axis first. The ONNX kernels are separable (the weight of a tap is the
// product of per-axis weights, indices are clamped per axis, and exclude_outside / antialias
// normalise per axis), so the chain computes the same sums in another order. The point is
// speed: one 2-D bilinear upsample reads 4 gathered taps and computes both coordinates per
// output element; the chain gathers only along the innermost axis, on the smaller intermediate
// when upsampling, and the outer axis's pass reads whole contiguous rows (DeepLab's final
// 16x16 -> 256x256 upsample of 21 class maps: 2.7 ms -> 0.28 ms). tf_crop_and_resize
// (extrapolation couples the axes), nearest mode, integer dtypes (rounding per pass) and
// symbolic shapes are left alone.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void separate_resize(Graph& g);

}  // namespace ingot::graph
