// The blocked direct convolution on a channel-blocked (NCHWc) input for 1 to 3 spatial dims, with
// an optional in-place epilogue block (see conv_nchwc.h), and the host packing of its weights.
#include "schedule/rules/conv_nchwc.h"

#include "support/channel_block.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Names of the spatial dims, innermost last: "w", "hw", "dhw".
std::string dim_names(size_t spatial) {
  return std::string("dhw").substr(3 - spatial);
}

}  // namespace

Stmt block_loop_nest(const std::vector<Var>& loops, const std::vector<IterVar>& ivs, Stmt blk) {
  std::vector<Expr> values(loops.begin(), loops.end());
  Stmt st = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1), std::move(blk));
  for (size_t l = loops.size(); l-- > 0;)
    st = For::make(loops[l], i64(0), ivs[l].extent, ForKind::kSerial, st);
  return st;
}

void append_conv_epilogue(PrimFunc& f, const Buffer& y, const std::vector<Var>& loops,
                          const std::vector<IterVar>& ivs, size_t spatial,
                          const ConvEpilogue& epilogue, const std::vector<Buffer>& params) {
  std::vector<IterVar> eivs(ivs.begin(), ivs.begin() + std::ptrdiff_t(spatial));
  std::vector<Var> eloops(loops.begin(), loops.begin() + std::ptrdiff_t(spatial));
  std::vector<Expr> idx;
  for (size_t k = 0; k < eivs.size(); ++k) {
    eivs[k].var = Var("e" + loops[k].name());
    eloops[k] = Var(loops[k].name());
    idx.push_back(eivs[k].var);
  }
  Stmt upd = BufferStore::make(y, epilogue(y.load(idx), idx), idx);
  Stmt est = block_loop_nest(eloops, eivs, make_block("epilogue", eivs, upd));
  f.body = SeqStmt::make({f.body, est});
  for (const Buffer& b : params) f.params.push_back(b);
}

BlockedConv2d make_blocked_conv_nchwc(const ConvNchwcShape& s, int ib, int nr,
                                      const ConvEpilogue& epilogue,
                                      const std::vector<Buffer>& epilogue_params) {
  size_t sp = s.in.size();
  INGOT_ICHECK(sp >= 1 && sp <= 3 && s.out.size() == sp && s.kernel.size() == sp &&
                   s.strides.size() == sp && s.dilations.size() == sp,
               "blocked conv: {} spatial dims", sp);
  BlockedConv2d c;
  c.nr = nr;
  int64_t ocb = ceil_div(s.oc, nr), icb = ceil_div(s.ic, ib);
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, ib, nr);
  INGOT_ICHECK(in.has_value(),
               "blocked conv: {} groups of {} -> {} channels do not fit blocks {}/{}", s.groups,
               s.ic, s.oc, ib, nr);
  DataType f = DataType::f32();
  auto shape = [](std::vector<int64_t> head, const std::vector<int64_t>& mid,
                  std::vector<int64_t> tail) {
    head.insert(head.end(), mid.begin(), mid.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  c.X = Buffer::make("X", f, shape({s.n, icb}, s.in, {ib}));
  int64_t width = s.ic / s.groups;
  INGOT_ICHECK(!s.lane_groups || (ib == nr && nr % width == 0 && in->count == 1),
               "blocked conv: lane groups of {} in blocks {}/{}", width, ib, nr);
  // Channels the reduction covers per input block.
  int64_t ici = s.lane_groups ? width : icb == 1 && s.groups == 1 ? s.ic : ib;
  c.Wp = Buffer::make("Wp", f, shape({ocb, in->count}, s.kernel, {s.lane_groups ? width : ib, nr}));
  c.bias = Buffer::make("bias", f, std::vector<int64_t>{ocb * nr});
  c.Y = Buffer::make("Y", f, shape({s.n, ocb}, s.out, {nr}));
  std::string names = dim_names(sp);
  Var vn("vn"), vb("vb"), vr("vr"), vc("vc"), vi("vi");
  std::vector<Var> vo, vk;
  for (char d : names) {
    vo.push_back(Var(std::string("v") + d));
    vk.push_back(Var(std::string("vk") + d));
  }
  // The output block's first input block (0 without groups).
  Expr first = in->in_per_step == 0    ? i64(0)
               : in->out_per_step == 1 ? Expr(vb) * in->in_per_step
                                       : floordiv(vb, i64(in->out_per_step)) * in->in_per_step;
  Expr xb = in->in_per_step == 0 ? Expr(vc) : first + vc;
  std::vector<Expr> yi = {vn, vb}, xi = {vn, xb}, wi = {vb, vc};
  for (size_t d = 0; d < sp; ++d) {
    yi.push_back(vo[d]);
    xi.push_back(Expr(vo[d]) * s.strides[d] + Expr(vk[d]) * s.dilations[d]);
    wi.push_back(vk[d]);
  }
  yi.push_back(vr);
  xi.push_back(s.lane_groups ? floordiv(Expr(vr), i64(width)) * width + vi : Expr(vi));
  wi.push_back(vi);
  wi.push_back(vr);
  Stmt body = BufferStore::make(c.Y, c.Y.load(yi) + c.X.load(xi) * c.Wp.load(wi), yi);
  Stmt init = BufferStore::make(c.Y, c.bias(Expr(vb) * int64_t(nr) + vr), yi);
  // Iteration order n, ocb, o..., r | icb, k..., ici (one input block: only its real lanes).
  std::vector<IterVar> ivs = {{vn, i64(0), i64(s.n), IterKind::kSpatial},
                              {vb, i64(0), i64(ocb), IterKind::kSpatial}};
  std::vector<Var> loops = {Var("n"), Var("ocb")};
  for (size_t d = 0; d < sp; ++d) {
    ivs.push_back({vo[d], i64(0), i64(s.out[d]), IterKind::kSpatial});
    loops.push_back(Var(std::string("o") + names[d]));
  }
  ivs.push_back({vr, i64(0), i64(nr), IterKind::kSpatial});
  loops.push_back(Var("r"));
  size_t spatial_iters = ivs.size();
  ivs.push_back({vc, i64(0), i64(in->count), IterKind::kReduce});
  loops.push_back(Var("icb"));
  for (size_t d = 0; d < sp; ++d) {
    ivs.push_back({vk[d], i64(0), i64(s.kernel[d]), IterKind::kReduce});
    loops.push_back(Var(std::string("k") + names[d]));
  }
  ivs.push_back({vi, i64(0), i64(ici), IterKind::kReduce});
  loops.push_back(Var("ici"));
  Stmt st = block_loop_nest(loops, ivs, make_block("conv", ivs, body, init));
  c.func = PrimFunc{"conv" + std::to_string(sp) + "d_nchwc", {c.X, c.Wp, c.bias}, st};
  if (epilogue)
    append_conv_epilogue(c.func, c.Y, loops, ivs, spatial_iters, epilogue, epilogue_params);
  c.func.params.push_back(c.Y);
  c.func.flops =
      2.0 * double(s.n * s.oc * product(s.out)) * double(s.ic / s.groups * product(s.kernel));
  return c;
}

std::vector<float> pack_conv_weights_nchwc(const float* w, const ConvNchwcShape& s, int ib,
                                           int nr) {
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, ib, nr);
  INGOT_ICHECK(in.has_value(), "blocked conv weights: groups do not fit the blocks");
  int64_t ocb = ceil_div(s.oc, nr), taps = product(s.kernel), icg = s.ic / s.groups,
          ocg = s.oc / s.groups;
  if (s.lane_groups) {
    std::vector<float> out(size_t(ocb * taps * icg * nr), 0.0f);
    for (int64_t o = 0; o < s.oc; ++o)
      for (int64_t j = 0; j < icg; ++j)
        for (int64_t t = 0; t < taps; ++t)
          out[size_t((((o / nr) * taps + t) * icg + j) * nr + o % nr)] =
              w[(o * icg + j) * taps + t];
    return out;
  }
  std::vector<float> out(size_t(ocb * in->count * taps * ib * nr), 0.0f);
  // W[o, c - group(o) * icg] for every input channel c the output block reads in its group.
  for (int64_t o = 0; o < s.oc; ++o) {
    int64_t ob = o / nr, first = (ob / in->out_per_step) * in->in_per_step;
    for (int64_t k = 0; k < in->count * ib; ++k) {
      int64_t local = (first * ib + k) - (o / ocg) * icg;
      if (local < 0 || local >= icg) continue;
      for (int64_t t = 0; t < taps; ++t)
        out[size_t((((ob * in->count + k / ib) * taps + t) * ib + k % ib) * nr + o % nr)] =
            w[(o * icg + local) * taps + t];
    }
  }
  return out;
}

}  // namespace ingot::schedule
