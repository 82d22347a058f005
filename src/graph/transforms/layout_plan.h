// The layout plan of the blocked convolutions: which convolutions' outputs must share one
// channel block so that choosing a block per convolution adds no layout conversion (values
// joined by an elementwise op, a pool, a depthwise conv or a residual summand), and the blocks
// such a class may take. `ingot tune` chooses one block per class, measured in the model
// (driver/tune_conv_layouts.h); graph pass layout_nchwc applies the choice
// (ChannelBlockPolicy::planned). TVM's graph tuner searches the same space (a layout per conv,
// the transforms between them costed); here a class never needs one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "support/channel_block.h"

namespace ingot::graph {

struct ConvLayoutClass {
  // The groups = 1 convs that write the class's values (node names, graph order): the plan
  // names each of them with the class's block.
  std::vector<std::string> convs;
  // Every node whose kernel the class's block changes: its members (the convs above, depthwise
  // convs, elementwise ops and pools on its values) and the nodes that read its values.
  std::vector<std::string> nodes;
  // Its values (their NCHW names; the pass names blocked values and their Pad / conversion
  // nodes after them).
  std::vector<std::string> values;
  // The blocks every writer allows (ChannelBlockPolicy::conv_output_options), the default
  // first; only the default where the block is not free (a grouped conv or a concat in the
  // class, a depthwise conv reading an NCHW tensor).
  std::vector<int64_t> blocks;
};

// The classes of a typed graph before layout_nchwc runs, in graph order of their first conv.
std::vector<ConvLayoutClass> conv_layout_classes(const Graph& g, const ChannelBlockPolicy& policy);

}  // namespace ingot::graph
