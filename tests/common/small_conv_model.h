// A small model for schedule-stage tests, lowered with default schedules for a vector width:
// x[1,16,12,12] -> Conv 3x3 16->32 (blocked_conv2d) -> depthwise 3x3 over 32 channels
// (depthwise_conv_nchwc) -> MatMul by a constant [12, 24] (packed_matmul). `second_conv` adds a
// second 3x3 32->32 conv after the depthwise one (32 input channels: another task).
#pragma once

#include <string>
#include <vector>

#include "graph/transforms/infer_types.h"
#include "graph/transforms/layout_nchwc.h"
#include "graph/transforms/rewrite_util.h"
#include "lower/lower_graph.h"
#include "schedule/rules/default_rules.h"

namespace ingot::testing {

inline graph::Value* small_conv(graph::Graph& g, graph::Value* x, const std::string& name,
                                int64_t c, int64_t oc, int64_t group) {
  std::vector<float> w(size_t(oc * (c / group) * 9));
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i % 7) - 3) * 0.1f;
  graph::Attrs a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("group", group);
  return g
      .add_node(ops::OpKind::Conv, name,
                {x, g.add_constant(name + "_w", graph::f32_constant({oc, c / group, 3, 3}, w))},
                {name + "_y"}, a)
      ->outputs[0];
}

inline tir::IRModule lowered_small_conv_model(int vector_bits, bool second_conv = false) {
  graph::Graph g;
  graph::TensorType t{graph::DType::kF32, {}};
  for (int64_t d : {1, 16, 12, 12}) t.shape.push_back(graph::Dim::fixed(d));
  graph::Value* x = g.add_value("x", t);
  g.inputs = {x};
  graph::Value* y = small_conv(g, x, "dense", 16, 32, 1);
  y = small_conv(g, y, "dw", 32, 32, 32);
  if (second_conv) y = small_conv(g, y, "dense2", 32, 32, 1);
  std::vector<float> m(12 * 24);
  for (size_t i = 0; i < m.size(); ++i) m[i] = float(int(i % 5) - 2) * 0.2f;
  y = g.add_node(ops::OpKind::MatMul, "mm",
                 {y, g.add_constant("m", graph::f32_constant({12, 24}, m))}, {"z"})
          ->outputs[0];
  g.outputs = {y};
  graph::infer_types(g);
  graph::convert_layout_nchwc(g, vector_channel_blocks(vector_bits));
  graph::infer_types(g);
  tir::IRModule mod = lower::lower_graph(g, {.cpu_schedules = true});
  schedule::assign_schedule_rules(mod, "llvm");  // as compile_model does after lowering
  return mod;
}

}  // namespace ingot::testing
