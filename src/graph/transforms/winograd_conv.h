// winograd_conv: a blocked 3 x 3 (or 1 x 3, 3 x 1) stride-1 convolution (ConvNCHWc, groups = 1,
// constant weights) becomes Winograd F(m x m, 3 x 3) (F(1 x m, 1 x 3), F(m x 1, 3 x 1);
// support/winograd.h) where the policy picks a tile m:
//   V = WinogradInputTransform(X)           [alpha^2, tiles, IC]   (B^T d B per tile)
//   M = MatMul(V, U)                        [alpha^2, tiles, OC]   (U = G g G^T, a constant)
//   Y = WinogradOutputTransform(M, B, Z)    the conv's output, bias and fused epilogue
// The weights are transformed here, in double, once; the explicit zero Pad layout_nchwc put
// before the conv is read through (the input transform pads its tiles itself). ONNX Runtime's
// x86 path has no Winograd; TVM's is the same three stages (data_pack, batched GEMM, inverse).
// Multiplications per output tile fall from 9 m^2 to alpha^2 (4x for m = 4) for 4x the weight
// bytes, so small maps with many channels (the weights streamed for few tiles) stay direct.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "graph/graph.h"

namespace ingot::graph {

// The nodes a conv `c` becomes are named c + these suffixes (their kernels, lowering's
// "<node>_<op>": `ingot tune` times each conv's).
inline constexpr const char* kWinogradInputSuffix = "_winograd_input";
inline constexpr const char* kWinogradProductSuffix = "_winograd_product";
inline constexpr const char* kWinogradOutputSuffix = "_winograd_output";

// What the policy sees of a candidate conv (channels padded to their blocks).
struct WinogradConvShape {
  int64_t n = 1, ic = 0, oc = 0, oh = 0, ow = 0;
  std::string node = {};   // the conv node's name (a tuned choice is per node)
  int64_t kh = 3, kw = 3;  // the kernel: 3x3, 1x3 or 3x1
};

// The tile m (2 or 4) to run the conv with, or 0 to keep it direct.
using WinogradPolicy = std::function<int(const WinogradConvShape&)>;

// The default choice (docs/architecture.md, "Winograd convolutions"; the measurements in
// docs/perf-runs/winograd_bench-*.json, bench/winograd_bench.py).
int default_winograd_tile(const WinogradConvShape& s);

// "auto" (default_winograd_tile), "direct" (none), "winograd_f2" / "winograd_f4" (every
// eligible conv with that tile): the --conv-algorithm values; UserError naming the option
// otherwise.
WinogradPolicy winograd_policy(const std::string& conv_algorithm);
void check_conv_algorithm(const std::string& conv_algorithm);

void convert_winograd_conv(Graph& g, const WinogradPolicy& policy);

}  // namespace ingot::graph
