// 2-D Conv on GPU targets as one product block "conv" (lower/compute/conv_block.cpp) tiled by the
// GPU matmul rule (schedule/rules/gpu_matmul.h): a 3x3, stride-2, padded conv with bias and a
// fused residual + Relu epilogue, an unpadded 1x1 conv with bias, a padded depthwise 3x3 and an
// unpadded two-group 3x3 with the residual epilogue. The default points stage
// the weights in shared memory in slabs of whole input channels (9 steps of k each for 3x3), and
// the input only where no padding is read; random points of the design space, built for OpenCL
// and run on the runtime's OpenCL device (PoCL here), match a direct convolution computed in
// float64 in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "codegen/gpu/device_lowering.h"
#include "driver/loop_passes.h"
#include "gpu_schedule_util.h"
#include "graph/transforms/rewrite_util.h"
#include "tir/op.h"

namespace ingot::testing {
namespace {

struct ConvCase {
  int64_t n, ic, h, w, oc, k, stride, pad;
  bool residual;  // a summand input and Relu fused
  int64_t group = 1;
  int64_t oh() const { return (h + 2 * pad - k) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - k) / stride + 1; }
};

constexpr ConvCase kPadded{2, 5, 13, 11, 20, 3, 2, 1, true};
constexpr ConvCase kPointwise{1, 24, 7, 9, 33, 1, 1, 0, false};
constexpr ConvCase kDepthwise{1, 12, 9, 10, 12, 3, 1, 1, false, 12};
constexpr ConvCase kGrouped{2, 8, 7, 6, 6, 3, 1, 0, true, 2};  // unpadded: the input staged
// Eight slabs of one channel, double-buffered by default: the loop over pairs of slabs once
// guarded its last refill, which PoCL miscompiled (tir/transforms/double_buffer.h).
constexpr ConvCase kEvenSlabs{1, 8, 9, 9, 16, 3, 2, 0, false};

float weight(int64_t i) {
  return float((i * 7) % 11) * 0.125f - 0.6f;
}
float input(int64_t i) {
  return float((i * 37) % 101) * 0.02f - 1.0f;
}
float bias(int64_t c) {
  return float(c % 5) * 0.25f - 0.5f;
}

tir::IRModule lowered_conv(const ConvCase& c) {
  graph::Graph g;
  auto type = [](std::vector<int64_t> dims) {
    graph::TensorType t{graph::DType::kF32, {}};
    for (int64_t d : dims) t.shape.push_back(graph::Dim::fixed(d));
    return t;
  };
  graph::Value* x = g.add_value("x", type({c.n, c.ic, c.h, c.w}));
  g.inputs = {x};
  std::vector<float> w(size_t(c.oc * (c.ic / c.group) * c.k * c.k)), b(size_t(c.oc));
  for (size_t i = 0; i < w.size(); ++i) w[i] = weight(int64_t(i));
  for (size_t i = 0; i < b.size(); ++i) b[i] = bias(int64_t(i));
  std::vector<graph::Value*> ins = {
      x, g.add_constant("w", graph::f32_constant({c.oc, c.ic / c.group, c.k, c.k}, w)),
      g.add_constant("b", graph::f32_constant({c.oc}, b))};
  if (c.residual) {
    graph::Value* z = g.add_value("z", type({c.n, c.oc, c.oh(), c.ow()}));
    g.inputs.push_back(z);
    ins.push_back(z);
  }
  graph::Node* conv = g.add_node(ops::OpKind::Conv, "conv", ins, {"y"});
  conv->attrs.set("kernel_shape", std::vector<int64_t>{c.k, c.k});
  conv->attrs.set("strides", std::vector<int64_t>{c.stride, c.stride});
  conv->attrs.set("pads", std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad});
  conv->attrs.set("group", c.group);
  if (c.residual) conv->attrs.set("activation", std::string("Relu"));
  g.outputs = {conv->outputs[0]};
  return lower_for_gpu(g);
}

std::vector<std::string> shared_names(const ConvCase& c) {
  tir::IRModule mod = lowered_conv(c);
  EXPECT_EQ(mod.kernels.size(), 1u);
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0);
  driver::run_loop_passes(mod, /*gpu=*/true);
  auto fns = codegen::split_device_functions(mod.kernels[0], 0);
  EXPECT_EQ(fns.size(), 1u);
  std::vector<std::string> names;
  for (const tir::Buffer& b : fns[0].shared) {
    names.push_back(b->name);
    // Slabs of whole input channels: the weights' tile is rows x 1 channel x k x k (one slab of
    // 9 steps for 3x3; 16 channels for 1x1).
    if (b->name.starts_with("w")) {
      EXPECT_EQ(b->shape.size(), 4u);
      int64_t channels = 0;
      EXPECT_TRUE(tir::is_const_int(b->shape[1], &channels));
      EXPECT_EQ(channels, c.k == 1 ? 16 : 1) << b->name;
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

// (Double-buffered, "_1", where the product has more than one slab of k.)
TEST(GpuConvRule, DefaultPointsStageWeightsAndOnlyUnpaddedInputs) {
  EXPECT_EQ(shared_names(kPadded), (std::vector<std::string>{"w_shared", "w_shared_1"}));
  EXPECT_EQ(shared_names(kPointwise),
            (std::vector<std::string>{"w_shared", "w_shared_1", "x_shared", "x_shared_1"}));
  EXPECT_EQ(shared_names(kDepthwise), std::vector<std::string>{"w_shared"});
  EXPECT_EQ(shared_names(kGrouped),
            (std::vector<std::string>{"w_shared", "w_shared_1", "x_shared", "x_shared_1"}));
}

// y = conv(x) + b (+ z, then Relu), in float64.
std::vector<double> direct_conv(const ConvCase& c, const std::vector<float>& x,
                                const std::vector<float>& z) {
  std::vector<double> y;
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t o = 0; o < c.oc; ++o)
      for (int64_t oh = 0; oh < c.oh(); ++oh)
        for (int64_t ow = 0; ow < c.ow(); ++ow) {
          double acc = bias(o);
          const int64_t icg = c.ic / c.group, first = o / (c.oc / c.group) * icg;
          for (int64_t i = 0; i < icg; ++i)
            for (int64_t kh = 0; kh < c.k; ++kh)
              for (int64_t kw = 0; kw < c.k; ++kw) {
                int64_t ih = oh * c.stride + kh - c.pad, iw = ow * c.stride + kw - c.pad;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                acc += double(weight(((o * icg + i) * c.k + kh) * c.k + kw)) *
                       x[size_t(((n * c.ic + first + i) * c.h + ih) * c.w + iw)];
              }
          if (c.residual) acc = std::max(0.0, acc + z[y.size()]);
          y.push_back(acc);
        }
  return y;
}

TEST(GpuConvRule, RandomPointsRunOnOpenClAndMatchADirectConvolution) {
  std::filesystem::path dir = temp_dir("gpu_conv");
  for (const ConvCase& c : {kPadded, kPointwise, kDepthwise, kGrouped, kEvenSlabs}) {
    std::vector<float> x(size_t(c.n * c.ic * c.h * c.w)), z(size_t(c.n * c.oc * c.oh() * c.ow()));
    for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
    for (size_t i = 0; i < z.size(); ++i) z[i] = input(int64_t(i) * 3 + 1);
    std::vector<double> want = direct_conv(c, x, z);
    std::set<std::string> traces;
    for (uint64_t seed = 0; seed <= 5; ++seed) {
      tir::IRModule mod = lowered_conv(c);
      std::string trace;
      mod.kernels[0] = gpu_scheduled(mod.kernels[0], seed, &trace);
      traces.insert(trace);
      driver::run_loop_passes(mod, /*gpu=*/true);
      std::string so = (dir / ("c" + std::to_string(c.k) + "_" + std::to_string(c.group) + "_" +
                               std::to_string(c.ic) + "_" + std::to_string(seed) + ".so"));
      std::vector<std::vector<float>> inputs = {x};
      if (c.residual) inputs.push_back(z);
      auto out = run_on_opencl(mod, so, inputs);
      ASSERT_EQ(out.size(), 1u);
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(out[0][i], want[i], 1e-4) << "element " << i << "\n" << trace;
    }
    EXPECT_GE(traces.size(), 4u);  // the points differ
  }
}

}  // namespace
}  // namespace ingot::testing
