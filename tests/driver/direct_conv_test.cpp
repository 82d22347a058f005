// Rule direct_conv (schedule/rules/direct_conv.h): on the c target and for the llvm target's NCHW
// convs that layout_nchwc leaves (here: runtime weights), lowering describes a Conv as the block
// every target has (conv_block.cpp, its padding a guard on the update), the rule is chosen by
// that pattern, and its schedule runs [n,] i, oh | init | c, kh, kw | j with the guard
// partitioned away: on the c target by default the columns (the row test lifted out of the
// column loops by hoist_guards), on llvm the rows too. No element tests the padding at run
// time. The traces replay to the same kernels. On the llvm target, random points of the rule
// (its parallel loops, its border rows) match convolutions computed here in double precision,
// with the input placed against an inaccessible page on either side: a strided,
// dilated, grouped 2-D conv with asymmetric pads and a fused Relu; a 1-D conv with a residual;
// and a 7x7 kernel on a 7x7 map, whose rows are all border rows (runs keep their row test); and
// so does the block unscheduled (its guard a select: the clamped input indices keep its loads
// in bounds).
// The c target's numbers are the conformance suite's and the Cortex-M example's.
#include <gtest/gtest.h>

#include <ingot/runtime.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiled_model.h"
#include "driver/onnx_model_builder.h"
#include "schedule/rules/default_rules.h"
#include "schedule/rules/direct_conv.h"
#include "schedule/trace.h"
#include "schedule_points.h"
#include "tir/printer.h"
#include "tir/structural_equal.h"
#include "tir/transforms/hoist_guards.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::testing {
namespace {

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, group;
  std::vector<int64_t> strides, dilations, pads;  // 2-D: pads top, left, bottom, right
  bool one_d = false;                             // h = kh = 1 and no H dim
  int64_t out(int d) const {
    const int64_t in = d == 0 ? h : w, k = d == 0 ? kh : kw;
    const size_t a = one_d ? 0 : size_t(d), r = one_d ? 1 : 2;
    return (in + pads[a] + pads[a + r] - dilations[a] * (k - 1) - 1) / strides[a] + 1;
  }
  std::vector<int64_t> x_shape() const {
    return one_d ? std::vector<int64_t>{n, c, w} : std::vector<int64_t>{n, c, h, w};
  }
  std::vector<int64_t> w_shape() const {
    return one_d ? std::vector<int64_t>{oc, c / group, kw}
                 : std::vector<int64_t>{oc, c / group, kh, kw};
  }
};

// y = Conv(x, W, b) (W an input), then Relu (2-D) or + x and Relu (1-D, c == oc, same width).
std::string conv_model(const std::filesystem::path& dir, const ConvCase& k,
                       const std::string& name) {
  OnnxModelBuilder b(13);
  b.input("x", k.x_shape(), onnx::TensorProto::FLOAT);
  b.input("W", k.w_shape(), onnx::TensorProto::FLOAT);
  b.initializer("b", {k.oc}, random_vector(size_t(k.oc), 7));
  auto* conv = b.node("Conv", {"x", "W", "b"}, {"c"});
  OnnxModelBuilder::attr_int(conv, "group", k.group);
  OnnxModelBuilder::attr_ints(conv, "strides", k.strides);
  OnnxModelBuilder::attr_ints(conv, "dilations", k.dilations);
  OnnxModelBuilder::attr_ints(conv, "pads", k.pads);
  if (k.one_d) {
    b.node("Add", {"c", "x"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
  } else {
    b.node("Relu", {"c"}, {"y"});
  }
  b.output("y");
  const std::string path = (dir / (name + ".onnx")).string();
  b.save(path);
  return path;
}

// The conv (and its epilogue) in double precision.
std::vector<double> reference(const ConvCase& k, const std::vector<float>& x,
                              const std::vector<float>& w, const std::vector<float>& bias) {
  const int64_t oh = k.one_d ? 1 : k.out(0), ow = k.out(1), h = k.one_d ? 1 : k.h;
  const int64_t icg = k.c / k.group, ocg = k.oc / k.group, khs = k.one_d ? 1 : k.kh;
  const size_t r = k.one_d ? 1 : 2, col = r - 1;
  std::vector<double> y(size_t(k.n * k.oc * oh * ow));
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t p = 0; p < oh; ++p)
        for (int64_t q = 0; q < ow; ++q) {
          double acc = bias[size_t(o)];
          for (int64_t c = 0; c < icg; ++c)
            for (int64_t a = 0; a < khs; ++a)
              for (int64_t e = 0; e < k.kw; ++e) {
                const int64_t row = k.one_d ? 0 : p * k.strides[0] + a * k.dilations[0] - k.pads[0];
                const int64_t cl = q * k.strides[col] + e * k.dilations[col] - k.pads[col];
                if (row < 0 || row >= h || cl < 0 || cl >= k.w) continue;
                const int64_t ic = o / ocg * icg + c;
                acc += double(x[size_t(((n * k.c + ic) * h + row) * k.w + cl)]) *
                       w[size_t(((o * icg + c) * khs + a) * k.kw + e)];
              }
          const size_t at = size_t(((n * k.oc + o) * oh + p) * ow + q);
          if (k.one_d) acc += x[at];
          y[at] = std::max(acc, 0.0);
        }
  return y;
}

// A copy of `v` in pages of its own with an inaccessible page on each side, starting right
// after the first (at_end false) or ending right before the last.
class GuardedCopy {
 public:
  GuardedCopy(const std::vector<float>& v, bool at_end) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE)), bytes = v.size() * sizeof(float);
    size_ = ((bytes + page - 1) / page + 2) * page;
    void* base = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(base, MAP_FAILED);
    base_ = static_cast<char*>(base);
    EXPECT_EQ(mprotect(base_, page, PROT_NONE), 0);
    EXPECT_EQ(mprotect(base_ + size_ - page, page, PROT_NONE), 0);
    data_ = reinterpret_cast<float*>(at_end ? base_ + size_ - page - bytes : base_ + page);
    std::memcpy(data_, v.data(), bytes);
  }
  GuardedCopy(const GuardedCopy&) = delete;
  GuardedCopy& operator=(const GuardedCopy&) = delete;
  ~GuardedCopy() { munmap(base_, size_); }
  float* data() const { return data_; }

 private:
  char* base_ = nullptr;
  size_t size_ = 0;
  float* data_ = nullptr;
};

const ConvCase kStridedGrouped{2, 6, 11, 13, 9, 3, 3, 3, {2, 1}, {1, 2}, {1, 2, 0, 1}};
const ConvCase kOneD{1, 4, 1, 17, 4, 1, 5, 1, {1}, {1}, {2, 2}, true};
const ConvCase kAllBorderRows{1, 2, 7, 7, 3, 7, 7, 1, {1, 1}, {1, 1}, {3, 3, 3, 3}};

TEST(DirectConv, TheCTargetsConvsAreBlocksInRowOrderWithThePaddingPartitionedAway) {
  const std::filesystem::path dir = temp_dir("direct_conv_c");
  driver::CompileOptions o;
  o.target = "c";
  for (const ConvCase& k : {kStridedGrouped, kOneD}) {
    tir::IRModule mod = lowered_module(conv_model(dir, k, "conv"), dir, o);
    schedule::assign_schedule_rules(mod, "c");
    const tir::IRModule unscheduled = mod;
    int convs = 0;
    for (const tir::PrimFunc& f : mod.kernels)
      convs += f.schedule_rule == schedule::kDirectConvRule;
    ASSERT_EQ(convs, 1);
    schedule::RuleTarget c_target;
    c_target.kind = "c";
    schedule::apply_default_schedules(mod, c_target);
    for (size_t x = 0; x < mod.kernels.size(); ++x) {
      const tir::PrimFunc& f = mod.kernels[x];
      if (f.schedule_rule != schedule::kDirectConvRule) continue;
      schedule::Trace t = schedule::Trace::from_json(nlohmann::json::parse(f.schedule_trace));
      EXPECT_TRUE(tir::structural_equal(t.replay(unscheduled.kernels[x]).func(), f)) << f.name;
      EXPECT_NE(f.schedule_trace.find("reverse_compute_at"), std::string::npos);  // the epilogue
      // The row's init before its reduction; the columns partitioned per kernel column.
      const std::string text = tir::to_string(f);
      const size_t init = text.find("conv_init");
      ASSERT_NE(init, std::string::npos) << text;
      EXPECT_LT(init, text.find("block conv_p")) << text;
      // The c target's default keeps the row test, which hoist_guards lifts out of the column
      // loops: no element tests the padding.
      const std::string loops = tir::to_string(tir::hoist_guards(tir::lower_blocks(f)));
      EXPECT_EQ(loops.find("select("), std::string::npos) << loops;
      EXPECT_EQ(loops.find("if ") != std::string::npos, !k.one_d) << loops;
    }
  }
}

TEST(DirectConv, TheLlvmTargetsNchwConvsTakeItAndMatchAReference) {
  const std::filesystem::path dir = temp_dir("direct_conv_llvm");
  int which = 0;
  for (const ConvCase& k : {kStridedGrouped, kOneD, kAllBorderRows}) {
    const std::string onnx = conv_model(dir, k, "conv" + std::to_string(which));
    tir::IRModule mod = lowered_module(onnx, dir);
    int convs = 0;
    for (const tir::PrimFunc& f : mod.kernels)
      convs += f.schedule_rule == schedule::kDirectConvRule;
    ASSERT_EQ(convs, 1) << which;
    std::vector<float> x = random_vector(size_t(k.n * k.c * (k.one_d ? 1 : k.h) * k.w), 11),
                       w = random_vector(
                           size_t(k.oc * (k.c / k.group) * (k.one_d ? 1 : k.kh) * k.kw), 12),
                       bias = random_vector(size_t(k.oc), 7);
    const std::vector<double> want = reference(k, x, w, bias);
    // Loads `so` and checks its output with the input against an inaccessible page on either
    // side (used in place): a load the padding guard should keep inside the input faults.
    auto check = [&](const std::string& so) {
      IngotModel* model = nullptr;
      IngotSession* session = nullptr;
      ASSERT_EQ(ingot_model_load(so.c_str(), &model), INGOT_OK) << ingot_last_error();
      ASSERT_EQ(ingot_session_create(model, &session), INGOT_OK) << ingot_last_error();
      std::vector<int64_t> xs = k.x_shape(), ws = k.w_shape();
      DLTensor xt = f32_tensor(x, xs), wt = f32_tensor(w, ws);
      ASSERT_EQ(ingot_session_set_input(session, 1, &wt), INGOT_OK) << ingot_last_error();
      for (bool at_end : {false, true}) {
        GuardedCopy guarded(x, at_end);
        xt.data = guarded.data();
        ASSERT_EQ(ingot_session_set_input(session, 0, &xt), INGOT_OK) << ingot_last_error();
        ASSERT_EQ(ingot_session_run(session), INGOT_OK) << ingot_last_error();
        DLTensor y;
        ASSERT_EQ(ingot_session_output(session, 0, &y), INGOT_OK);
        auto* yp = static_cast<const float*>(y.data);
        for (size_t e = 0; e < want.size(); ++e)
          ASSERT_NEAR(yp[e], want[e], 1e-4 * (1 + std::abs(want[e]))) << which << ": " << e;
      }
      ingot_session_free(session);
      ingot_model_free(model);
    };
    const std::string so = (dir / ("conv" + std::to_string(which) + ".so")).string();
    std::set<std::string> traces;
    for (uint64_t seed : {1, 2, 3}) {
      build_random_point(mod, schedule::kDirectConvRule, seed, so, traces);
      check(so);
    }
    // Unscheduled, the guard is a select inside the fused k loop, whose vector form evaluates
    // the load wherever the guard is false: the clamped indices keep it inside the input.
    tir::IRModule unscheduled = mod;
    driver::run_loop_passes(unscheduled);
    codegen::build_shared_library(unscheduled, codegen::Target::host(), so);
    check(so);
    ++which;
  }
}

}  // namespace
}  // namespace ingot::testing
