// float16 products on GPU targets (lower/compute/matmul_block.cpp, rules/gpu_matmul.h): the
// product accumulates in float32 and the fused bias and Relu round once into float16, on the
// SIMT tiles and on the tensor-core tiles (the m16n8k16 lane layout, whose warp_mma nests
// OpenCL runs as their reference loops). Every point is built for OpenCL, run on the runtime's
// OpenCL device (PoCL here) and compared with the product in float64 of the same float16 inputs,
// rounded to float16; and float16 convs, an unpadded 1x1 on the tensor-core tiles too. Under CUDA
// the warp_mma nests become mma.sync: the registers each lane passes (codegen/gpu/warp_mma.h) are
// checked on the CPU against an emulation of the instruction on the fragment layout of the PTX ISA.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "codegen/gpu/device_lowering.h"
#include "codegen/gpu/device_printer.h"
#include "codegen/gpu/warp_mma.h"
#include "driver/loop_passes.h"
#include "gpu_schedule_util.h"
#include "support/half.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/reduction.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::testing {
namespace {

// Exactly representable in float16.
double weight(int64_t k, int64_t n) {
  return double((k * 7 + n * 3) % 11) * 0.125 - 0.625;
}
double input(int64_t i) {
  return double((i * 37) % 101) * 0.03125 - 1.5;
}
double bias(int64_t n) {
  return double(n % 7) * 0.5 - 1.5;
}

std::vector<uint8_t> half_bytes(const std::vector<double>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  for (size_t i = 0; i < v.size(); ++i) {
    uint16_t h = double_to_half_bits(v[i]);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

// y[b, m, n] = Relu(x[b, m, k] @ W[k, n] + bias[n]) in float16, MatMul with the bias and Relu
// fused (fuse_epilogue's form), lowered for a GPU target.
tir::IRModule lowered_half_matmul(int64_t b, int64_t m, int64_t k, int64_t n) {
  graph::Graph g;
  graph::Value* x = g.add_value(
      "x",
      {graph::DType::kF16, {graph::Dim::fixed(b), graph::Dim::fixed(m), graph::Dim::fixed(k)}});
  g.inputs = {x};
  std::vector<double> w, bv;
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c) w.push_back(weight(r, c));
  for (int64_t c = 0; c < n; ++c) bv.push_back(bias(c));
  auto constant = [&](const char* name, std::vector<int64_t> shape, const std::vector<double>& v) {
    return g.add_constant(
        name, std::make_shared<graph::Tensor>(graph::DType::kF16, std::move(shape), half_bytes(v)));
  };
  graph::Node* mm = g.add_node(ops::OpKind::MatMul, "mm",
                               {x, constant("w", {k, n}, w), constant("bias", {n}, bv)}, {"y"});
  mm->attrs.set("activation", std::string("Relu"));
  g.outputs = {mm->outputs[0]};
  return lower_for_gpu(g);
}

bool has_warp_mma(const tir::Stmt& s) {
  struct Finder : tir::IRVisitor {
    bool found = false;
    void visit_For(const tir::For* op, const tir::Stmt& st) override {
      found = found || op->kind == tir::ForKind::kWarpMma;
      tir::IRVisitor::visit_For(op, st);
    }
  } f;
  f.visit(s);
  return f.found;
}

// Points `first`..`last` of the rule's space (with or without tensor cores) for the product:
// run on OpenCL and compared; returns the distinct traces, or 0 after a failure. `mma`: whether
// every point must use the tensor-core tiles.
size_t check_points(int64_t b, int64_t m, int64_t k, int64_t n, bool tensor_cores, bool mma,
                    uint64_t first, uint64_t last) {
  std::vector<double> x(size_t(b * m * k));
  for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
  std::set<std::string> traces;
  std::filesystem::path dir = temp_dir("gpu_half_matmul");
  for (uint64_t seed = first; seed <= last; ++seed) {
    tir::IRModule mod = lowered_half_matmul(b, m, k, n);
    std::string trace;
    mod.kernels[0] = gpu_scheduled(mod.kernels[0], seed, &trace, tensor_cores);
    traces.insert(trace);
    EXPECT_EQ(has_warp_mma(mod.kernels[0].body), mma) << trace;
    driver::run_loop_passes(mod, /*gpu=*/true);
    for (const auto& f : codegen::split_device_functions(mod.kernels[0], 0)) {
      EXPECT_LE(f.block[0] * f.block[1] * f.block[2], 256u) << trace;
      // mma.sync reads the masked rows and columns of a partial tile too (PoCL would not
      // fault on a read past a local buffer; a GPU does).
      EXPECT_EQ(codegen::warp_mma_read_outside(f), "") << trace;
    }
    std::string so = (dir / (std::to_string(m) + "_" + std::to_string(seed) + ".so")).string();
    auto out = run_on_opencl_bytes(mod, so, {half_bytes(x)});
    if (out.size() != 1 || out[0].size() != size_t(b * m * n) * 2) return 0;
    for (int64_t r = 0; r < b * m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        double want = bias(c);
        for (int64_t i = 0; i < k; ++i) want += x[size_t(r * k + i)] * weight(i, c);
        uint16_t h = 0;
        std::memcpy(&h, out[0].data() + 2 * (r * n + c), 2);
        // Rounded once from float32 (whose sums of these exact products may differ from
        // float64's in the last float32 bits only): the float16 nearest the float64 result.
        EXPECT_NEAR(half_bits_to_double(h), round_to_half(std::max(0.0, want)),
                    std::ldexp(std::abs(want), -11) + 1e-6)
            << r << "," << c << "\n"
            << trace;
        if (::testing::Test::HasFailure()) return 0;
      }
  }
  return traces.size();
}

// SIMT tiles (OpenCL, or CUDA before sm_80): partial tiles on every axis.
TEST(GpuHalfMatmul, AccumulatesInFloat32OnTheSimtTiles) {
  EXPECT_GE(check_points(2, 37, 29, 45, false, false, 0, 4), 3u);
}

// Tensor-core tiles: the default (2 x 2 warps of 2 x 4 instructions' tiles, slabs of 32,
// double-buffered) and
// random points of their space. The default stages both slabs in runs of 8 elements, which
// OpenCL copies with vload_half8 / vstore8 (CUDA with 16-byte vectors, tests/cli/cuda_test.cpp).
TEST(GpuHalfMatmul, TensorCoreTilesRunAsTheirReferenceLoopsOnOpenCl) {
  EXPECT_GE(check_points(2, 64, 96, 80, true, true, 0, 5), 4u);
  tir::IRModule mod = lowered_half_matmul(2, 64, 96, 80);
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0, nullptr, /*tensor_cores=*/true);
  driver::run_loop_passes(mod, /*gpu=*/true);
  std::string cl = codegen::print_opencl(codegen::split_device_functions(mod.kernels[0], 0));
  size_t copies = 0;
  for (size_t at = cl.find("vstore8(vload_half8("); at != std::string::npos;
       at = cl.find("vstore8(vload_half8(", at + 1))
    ++copies;
  // Three slabs of 32, double-buffered: each operand's first slab, then the second and third.
  EXPECT_EQ(copies, 2u * 3u) << cl;
}

// Rows and columns that the tiles do not divide: the last tiles are partial, their masked
// rows and columns summed but not stored (37 rows: 16 + 16 + 5; 45 columns).
TEST(GpuHalfMatmul, PartialTensorCoreTilesMaskTheirRowsAndColumns) {
  EXPECT_GE(check_points(2, 37, 32, 45, true, true, 0, 5), 4u);
}

// A depth that is not a multiple of 16 (a partial slab of k would add stale values to every
// sum), or fewer than 16 rows: the SIMT tiles.
TEST(GpuHalfMatmul, ProductsTheInstructionCannotTileKeepTheSimtTiles) {
  EXPECT_GE(check_points(1, 37, 29, 16, true, false, 0, 1), 1u);
  EXPECT_GE(check_points(1, 9, 32, 16, true, false, 0, 0), 1u);
}

// One-row products (decode-style GEMVs, k split across rows of threads): the rounding pass
// folded into the write-back on the first row of threads.
TEST(GpuHalfMatmul, OneRowProductsAccumulateInFloat32) {
  EXPECT_GE(check_points(3, 1, 256, 45, true, false, 0, 4), 3u);
}

// --- float16 convs: 1x1 unpadded ones on the tensor-core tiles too ---

// y = Relu(Conv(x, w, bias)) in float16, x [1, ic, h, wd], w [oc, ic, k, k], stride 1, padding
// `pad`; returns the distinct traces of points first..last, or 0 after a failure.
size_t check_conv_points(int64_t ic, int64_t oc, int64_t h, int64_t wd, int64_t k, int64_t pad,
                         bool mma, uint64_t first, uint64_t last) {
  const int64_t oh = h + 2 * pad - k + 1, ow = wd + 2 * pad - k + 1;
  std::vector<double> x(size_t(ic * h * wd)), w, bv;
  for (size_t i = 0; i < x.size(); ++i) x[i] = input(int64_t(i));
  for (int64_t o = 0; o < oc; ++o) {
    bv.push_back(bias(o));
    for (int64_t c = 0; c < ic * k * k; ++c) w.push_back(weight(c, o));
  }
  std::set<std::string> traces;
  std::filesystem::path dir = temp_dir("gpu_half_conv");
  for (uint64_t seed = first; seed <= last; ++seed) {
    graph::Graph g;
    auto dims = [](std::vector<int64_t> v) {
      std::vector<graph::Dim> d;
      for (int64_t e : v) d.push_back(graph::Dim::fixed(e));
      return d;
    };
    graph::Value* xv = g.add_value("x", {graph::DType::kF16, dims({1, ic, h, wd})});
    g.inputs = {xv};
    auto constant = [&](const char* name, std::vector<int64_t> shape,
                        const std::vector<double>& v) {
      return g.add_constant(name, std::make_shared<graph::Tensor>(graph::DType::kF16,
                                                                  std::move(shape), half_bytes(v)));
    };
    graph::Node* conv =
        g.add_node(ops::OpKind::Conv, "conv",
                   {xv, constant("w", {oc, ic, k, k}, w), constant("b", {oc}, bv)}, {"y"});
    conv->attrs.set("kernel_shape", std::vector<int64_t>{k, k});
    conv->attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    conv->attrs.set("activation", std::string("Relu"));
    g.outputs = {conv->outputs[0]};
    tir::IRModule mod = lower_for_gpu(g);
    std::string trace;
    mod.kernels[0] = gpu_scheduled(mod.kernels[0], seed, &trace, /*tensor_cores=*/true);
    traces.insert(trace);
    EXPECT_EQ(has_warp_mma(mod.kernels[0].body), mma) << trace;
    driver::run_loop_passes(mod, /*gpu=*/true);
    for (const auto& f : codegen::split_device_functions(mod.kernels[0], 0))
      EXPECT_EQ(codegen::warp_mma_read_outside(f), "") << trace;
    std::string so = (dir / (std::to_string(k) + "_" + std::to_string(seed) + ".so")).string();
    auto out = run_on_opencl_bytes(mod, so, {half_bytes(x)});
    if (out.size() != 1 || out[0].size() != size_t(oc * oh * ow) * 2) return 0;
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t c = 0; c < ow; ++c) {
          double want = bias(o);
          for (int64_t i = 0; i < ic; ++i)
            for (int64_t p = 0; p < k; ++p)
              for (int64_t q = 0; q < k; ++q) {
                int64_t yy = r + p - pad, xx = c + q - pad;
                if (yy >= 0 && yy < h && xx >= 0 && xx < wd)
                  want += x[size_t((i * h + yy) * wd + xx)] * weight((i * k + p) * k + q, o);
              }
          uint16_t hv = 0;
          std::memcpy(&hv, out[0].data() + 2 * ((o * oh + r) * ow + c), 2);
          EXPECT_NEAR(half_bits_to_double(hv), round_to_half(std::max(0.0, want)),
                      std::ldexp(std::abs(want), -11) + 1e-6)
              << o << "," << r << "," << c << "\n"
              << trace;
          if (::testing::Test::HasFailure()) return 0;
        }
  }
  return traces.size();
}

// An unpadded 1x1 conv is a product of the weights [oc, ic] and each row of the input
// [ic, w]: output channels x columns on the tensor-core tiles (rows of 16 x 4 here).
TEST(GpuHalfConv, UnpaddedPointwiseConvsRunOnTheTensorCoreTiles) {
  EXPECT_GE(check_conv_points(32, 48, 4, 16, 1, 0, true, 0, 3), 3u);
}

// Rows of 28 columns (MobileNetV2's 28x28 stage) on tiles 32 columns wide: the staged input
// keeps the whole tile, whose last 4 columns mma.sync reads and the write-back masks. The
// first H200 run crashed here while the buffer held 28 columns (session 27).
TEST(GpuHalfConv, PartialColumnTilesStageWholeTilesForTheTensorCores) {
  EXPECT_GE(check_conv_points(48, 32, 2, 28, 1, 0, true, 0, 1), 1u);
}

// A padded 3x3 reads its input under a condition: the SIMT tiles, in float32 sums.
TEST(GpuHalfConv, PaddedConvsKeepTheSimtTiles) {
  EXPECT_GE(check_conv_points(5, 20, 9, 11, 3, 1, false, 0, 2), 2u);
}

// --- The CUDA lowering's fragments against the instruction's fragment layout ---

// The PTX ISA's m16n8k16 (f16 inputs, f32 accumulators) on the registers of the 32 lanes, in
// the ISA's terms: lane 4g + t holds A's (g + 8 (i / 2 % 2), 2t + i % 2 + 8 (i / 4)) in a_i, B's
// (2t + i % 2 + 8 (i / 2), g) in b_i and C's / D's (g + 8 (i / 2), 2t + i % 2) in c_i / d_i.
struct LaneRegisters {
  std::array<double, 8> a{};
  std::array<double, 4> b{}, c{};
};
std::array<std::array<double, 4>, 32> emulate_mma(const std::array<LaneRegisters, 32>& lanes) {
  auto a_tile = [&](int row, int col) {
    return lanes[size_t((row % 8) * 4 + (col % 8) / 2)]
        .a[size_t(col % 2 + 2 * (row / 8) + 4 * (col / 8))];
  };
  auto b_tile = [&](int row, int col) {
    return lanes[size_t(col * 4 + (row % 8) / 2)].b[size_t(row % 2 + 2 * (row / 8))];
  };
  std::array<std::array<double, 4>, 32> d{};
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      int row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
      double sum = lanes[size_t(lane)].c[size_t(i)];
      for (int k = 0; k < 16; ++k) sum += a_tile(row, k) * b_tile(k, col);
      d[size_t(lane)][size_t(i)] = sum;
    }
  return d;
}

// The first warp_mma loop of a device function, with the extents of the loops around it.
struct FoundMma {
  const tir::For* loop = nullptr;
  std::map<const tir::VarNode*, int64_t> outer;
};
FoundMma find_warp_mma(const tir::Stmt& body) {
  struct Finder : tir::IRVisitor {
    FoundMma found;
    std::map<const tir::VarNode*, int64_t> outer;
    void visit_For(const tir::For* op, const tir::Stmt& s) override {
      if (found.loop != nullptr) return;
      if (op->kind == tir::ForKind::kWarpMma) {
        found = {op, outer};
        return;
      }
      int64_t e = 0;
      tir::is_const_int(op->extent, &e);
      outer[op->loop_var.node()] = e;
      tir::IRVisitor::visit_For(op, s);
      outer.erase(op->loop_var.node());
    }
  } f;
  f.visit(body);
  return f.found;
}

int64_t eval_index(const tir::Expr& e, const tir::VarMap& values) {
  tir::Expr v = tir::arith::simplify(tir::substitute(e, values));
  int64_t out = -1;
  EXPECT_TRUE(tir::is_const_int(v, &out)) << tir::to_string(v);
  return out;
}

// The tensor-core kernel of a float16 product lowered for CUDA: in its device function, at
// random values of the block, the warp and the loops around each mma, the registers the
// lowering gives each lane, run through the emulated instruction, give every lane the sums its
// reference loops compute (exactly: the values are small multiples of 1/2).
// (And for a product whose last tiles are partial: its nests' stores are masked.)
void check_cuda_fragments(int64_t m, int64_t k, int64_t n) {
  tir::IRModule mod = lowered_half_matmul(1, m, k, n);
  mod.kernels[0] = gpu_scheduled(mod.kernels[0], 0, nullptr, /*tensor_cores=*/true);
  driver::run_loop_passes(mod, /*gpu=*/true);
  auto fns = codegen::split_device_functions(mod.kernels[0], 0, 48 * 1024, true);
  ASSERT_EQ(fns.size(), 1u);
  const codegen::DeviceFunction& fn = fns[0];
  ASSERT_EQ(fn.block[0], 32u);
  FoundMma mma = find_warp_mma(fn.body);
  ASSERT_NE(mma.loop, nullptr);
  const tir::Var lane = fn.thread_vars[0];
  std::string why;
  auto frag = codegen::warp_mma_fragments(*mma.loop, lane, &why);
  ASSERT_TRUE(frag.has_value()) << why;
  // The reference nest: C[c(h, q)] += A[a(h, k)] * B[b(q, k)] per lane.
  const auto* fq = mma.loop->body.as<tir::For>();
  const auto* fk = fq->body.as<tir::For>();
  const auto* store = fk->body.as<tir::BufferStore>();
  if (const auto* mask = fk->body.as<tir::IfThenElse>())
    store = mask->then_case.as<tir::BufferStore>();
  ASSERT_NE(store, nullptr) << tir::to_string(mma.loop->body);
  auto product = tir::match_widened_product(*store);
  ASSERT_TRUE(product.has_value());
  const tir::Var &h = mma.loop->loop_var, &q = fq->loop_var, &k = fk->loop_var;

  std::mt19937 rng(7);
  auto fill = [&](const tir::Buffer& b) {
    std::vector<double> v(size_t(*codegen::constant_elements(*b.get())));
    for (double& x : v) x = double(int(rng() % 9) - 4) * 0.5;
    return v;
  };
  for (int trial = 0; trial < 4; ++trial) {
    std::vector<double> a = fill(frag->a), b = fill(frag->b), c = fill(frag->c);
    tir::VarMap at;  // the block, the warp and the loops around the mma
    at[fn.block_vars[0].node()] = tir::i64(int64_t(rng() % fn.grid[0]));
    if (fn.thread_vars[1].defined())
      at[fn.thread_vars[1].node()] = tir::i64(int64_t(rng() % fn.block[1]));
    for (const auto& [v, extent] : mma.outer)
      if (!at.count(v) && extent > 0) at[v] = tir::i64(int64_t(rng() % uint64_t(extent)));
    std::array<LaneRegisters, 32> regs;
    for (int l = 0; l < 32; ++l) {
      tir::VarMap m = at;
      m[lane.node()] = tir::i64(l);
      for (size_t i = 0; i < 8; ++i)
        regs[size_t(l)].a[i] = a.at(size_t(eval_index(frag->a_index[i], m)));
      for (size_t i = 0; i < 4; ++i) {
        regs[size_t(l)].b[i] = b.at(size_t(eval_index(frag->b_index[i], m)));
        regs[size_t(l)].c[i] = c.at(size_t(eval_index(frag->c_index[i], m)));
      }
    }
    auto d = emulate_mma(regs);
    for (int l = 0; l < 32; ++l)
      for (int i = 0; i < 4; ++i) {
        tir::VarMap m = at;
        m[lane.node()] = tir::i64(l);
        m[h.node()] = tir::i64(i / 2);
        m[q.node()] = tir::i64(i % 2);
        EXPECT_EQ(eval_index(frag->c_index[size_t(i)], m), eval_index(store->indices[0], m));
        double want = c.at(size_t(eval_index(store->indices[0], m)));
        for (int s = 0; s < 16; ++s) {
          m[k.node()] = tir::i64(s);
          want += a.at(size_t(eval_index(product->a->indices[0], m))) *
                  b.at(size_t(eval_index(product->b->indices[0], m)));
        }
        EXPECT_EQ(d[size_t(l)][size_t(i)], want) << "lane " << l << " register " << i;
        if (::testing::Test::HasFailure()) return;
      }
  }
  // And the CUDA code runs mma.sync on them.
  EXPECT_NE(codegen::print_cuda(fns).find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
            std::string::npos);
}

TEST(GpuHalfMatmul, CudaFragmentsComputeTheReferenceNestOnTheInstructionsLayout) {
  check_cuda_fragments(64, 64, 64);
  check_cuda_fragments(40, 48, 44);  // partial tiles
}

// A nest whose A element depends on the lane's column pair (lane % 4) is no mma tile: refused
// with the reason.
TEST(GpuHalfMatmul, NestsOutsideTheInstructionsLayoutAreRefused) {
  using namespace tir;
  Var lane("tx"), h("h"), q("q"), k("k");
  Buffer a = Buffer::make("A", DataType::f16(), std::vector<int64_t>{512}, StorageScope::kShared);
  Buffer b = Buffer::make("B", DataType::f16(), std::vector<int64_t>{128}, StorageScope::kShared);
  Buffer c = Buffer::make("C", DataType::f32(), std::vector<int64_t>{4}, StorageScope::kLocal);
  auto nest = [&](Expr a_index, Expr b_index) {
    Expr ci = h * i64(2) + q;
    Stmt st = BufferStore::make(c,
                                c.load({ci}) + cast(DataType::f32(), a.load({a_index})) *
                                                   cast(DataType::f32(), b.load({b_index})),
                                {ci});
    st = For::make(k, i64(0), i64(16), ForKind::kSerial, st);
    st = For::make(q, i64(0), i64(2), ForKind::kSerial, st);
    return For::make(h, i64(0), i64(2), ForKind::kWarpMma, st);
  };
  std::string why;
  // A good tile: A by (lane / 4, h, k), B by (lane % 4, q, k).
  Stmt good = nest((floordiv(lane, i64(4)) * i64(2) + h) * i64(16) + k,
                   k * i64(8) + floormod(lane, i64(4)) * i64(2) + q);
  EXPECT_TRUE(codegen::warp_mma_fragments(*good.as<For>(), lane, &why).has_value()) << why;
  Stmt by_lane = nest(lane * i64(16) + k, k * i64(8) + q);
  EXPECT_FALSE(codegen::warp_mma_fragments(*by_lane.as<For>(), lane, &why).has_value());
  EXPECT_EQ(why, "A's index depends on the lane's column pair (lane % 4)");
  Stmt b_by_row = nest(h * i64(16) + k, k * i64(8) + floordiv(lane, i64(4)));
  EXPECT_FALSE(codegen::warp_mma_fragments(*b_by_row.as<For>(), lane, &why).has_value());
  EXPECT_EQ(why, "B's index depends on the lane's row group (lane / 4)");
}

}  // namespace
}  // namespace ingot::testing
