// trim_conv_taps: kernel taps of a Conv that read only zero padding for every output position
// (a large dilation on a small map: DeepLab's ASPP branches at dilation 24 and 36 on a 16 x 16
// map touch the input with their centre tap alone) are dropped. Per spatial dim the taps that
// reach the input form one range; the weights are sliced to it and the pads shifted so every
// output reads the same input positions, so the output is unchanged (a 3x3 conv whose outer taps
// never reach the input becomes a 1x1 conv). Only f32 Convs with constant weights, static shapes
// and non-negative pads are rewritten; when no non-negative end pad keeps the output size the
// Conv stays.
#pragma once

#include "graph/graph.h"

namespace ingot::graph {

void trim_conv_taps(Graph& g);

}  // namespace ingot::graph
