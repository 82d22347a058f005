// The views a constant Pad is described on: the trailing dims it leaves alone merged into the
// last dim it pads (row-major reshapes, the same bytes), so each row's copy between the padding
// is one contiguous run (a channel-blocked tensor's lanes join its columns) rather than a loop
// of short lane runs. compute/pad.cpp reads the pads of the merged dim scaled accordingly.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "graph/graph.h"

namespace ingot::lower {

// The input and output given their merged shapes; empty when the Pad crops, reads its pads at
// run time, is not in constant mode, has symbolic dims or has no such trailing dims.
std::map<const graph::Value*, std::vector<int64_t>> pad_view_shapes(const graph::Node& node);

}  // namespace ingot::lower
