// Where the inputs of a Concat lie in its output (and the outputs of a Split in its input). When
// every dim before the axis has extent 1 (batch 1 for a channel concat, blocked or not), input i is
// one contiguous byte range of the output, so the node that produces it can write it there directly
// and no kernel has to copy it (lowering's concat-in-place memory plan; graph pass fuse_ops keeps
// such a Concat out of fused groups for it).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"

namespace ingot::ops {

// The byte offset of each input's slice in the output of Concat `n`; nullopt when a shape is not
// static or a dim before the axis has an extent other than 1.
std::optional<std::vector<int64_t>> concat_slice_offsets(const graph::Node& n);

// The mirror for Split `n`: the byte offset of each output's range in the input, on the same
// condition (lowering makes such outputs slices of the input's storage, with no kernel).
std::optional<std::vector<int64_t>> split_slice_offsets(const graph::Node& n);

}  // namespace ingot::ops
