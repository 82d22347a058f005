// Attributes shared by Conv and the pools: kernel_shape, strides, dilations, pads, auto_pad.
#pragma once

#include "frontend/onnx/converter.h"

namespace ingot::frontend::detail {

// Copies the window attributes present on the node; checks auto_pad's value and drops the default
// "NOTSET" (explicit pads then apply).
graph::Attrs window_attrs(NodeConverter& c);

}  // namespace ingot::frontend::detail
