// Window attributes (kernel_shape, strides, dilations, pads, auto_pad) of Conv and the pools.
#include "frontend/onnx/pool_attrs.h"

namespace ingot::frontend::detail {

graph::Attrs window_attrs(NodeConverter& c) {
  graph::Attrs attrs;
  for (const char* name : {"kernel_shape", "strides", "dilations", "pads"})
    if (auto v = c.attr_ints(name)) attrs.set(name, *v);
  if (auto pad = c.attr_string("auto_pad")) {
    if (*pad != "NOTSET" && *pad != "SAME_UPPER" && *pad != "SAME_LOWER" && *pad != "VALID")
      c.fail(
          "attribute 'auto_pad' value '{}' is not supported (expected NOTSET, SAME_UPPER, "
          "SAME_LOWER or VALID)",
          *pad);
    if (*pad != "NOTSET") {
      attrs.erase("pads");  // auto_pad decides the padding (as ONNX Runtime does)
      attrs.set("auto_pad", *pad);
    }
  }
  return attrs;
}

}  // namespace ingot::frontend::detail
