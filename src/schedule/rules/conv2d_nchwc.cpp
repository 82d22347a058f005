// The blocked direct convolution on a channel-blocked (NCHWc) input with an optional in-place
// epilogue block (see conv2d.h), and the host packing of its weights.
#include "schedule/rules/conv2d.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

using namespace tir;

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

Stmt loop_nest(const std::vector<Var>& loops, const std::vector<IterVar>& ivs, Stmt blk) {
  std::vector<Expr> values(loops.begin(), loops.end());
  Stmt st = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1), std::move(blk));
  for (size_t l = loops.size(); l-- > 0;)
    st = For::make(loops[l], i64(0), ivs[l].extent, ForKind::kSerial, st);
  return st;
}

}  // namespace

BlockedConv2d make_blocked_conv2d_nchwc(const Conv2dShape& s, int ib, int nr,
                                        const ConvEpilogue& epilogue,
                                        const std::vector<Buffer>& epilogue_params) {
  BlockedConv2d c;
  c.nr = nr;
  int64_t ocb = ceil_div(s.oc, nr), icb = ceil_div(s.ic, ib);
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, ib, nr);
  INGOT_ICHECK(in.has_value(),
               "blocked conv: {} groups of {} -> {} channels do not fit blocks {}/{}", s.groups,
               s.ic, s.oc, ib, nr);
  DataType f = DataType::f32();
  c.X = Buffer::make("X", f, std::vector<int64_t>{s.n, icb, s.ih, s.iw, ib});
  c.Wp = Buffer::make("Wp", f, std::vector<int64_t>{ocb, in->count, s.kh, s.kw, ib, nr});
  c.bias = Buffer::make("bias", f, std::vector<int64_t>{ocb * nr});
  c.Y = Buffer::make("Y", f, std::vector<int64_t>{s.n, ocb, s.oh, s.ow, nr});
  Var vn("vn"), vb("vb"), vh("vh"), vw("vw"), vr("vr"), vc("vc"), vkh("vkh"), vkw("vkw"), vi("vi");
  std::vector<Expr> yi = {vn, vb, vh, vw, vr};
  // The output block's first input block (0 without groups).
  Expr first = in->in_per_step == 0    ? i64(0)
               : in->out_per_step == 1 ? Expr(vb) * in->in_per_step
                                       : floordiv(vb, i64(in->out_per_step)) * in->in_per_step;
  Expr cb = in->in_per_step == 0 ? Expr(vc) : first + vc;
  Expr x = c.X(vn, cb, Expr(vh) * s.sh + Expr(vkh) * s.dh, Expr(vw) * s.sw + Expr(vkw) * s.dw, vi);
  Stmt body = BufferStore::make(c.Y, c.Y.load(yi) + x * c.Wp(vb, vc, vkh, vkw, vi, vr), yi);
  Stmt init = BufferStore::make(c.Y, c.bias(Expr(vb) * int64_t(nr) + vr), yi);
  std::vector<IterVar> ivs = {
      {vn, i64(0), i64(s.n), IterKind::kSpatial},
      {vb, i64(0), i64(ocb), IterKind::kSpatial},
      {vh, i64(0), i64(s.oh), IterKind::kSpatial},
      {vw, i64(0), i64(s.ow), IterKind::kSpatial},
      {vr, i64(0), i64(nr), IterKind::kSpatial},
      {vc, i64(0), i64(in->count), IterKind::kReduce},
      {vkh, i64(0), i64(s.kh), IterKind::kReduce},
      {vkw, i64(0), i64(s.kw), IterKind::kReduce},
      // One block without groups: only the real lanes.
      {vi, i64(0), i64(icb == 1 && s.groups == 1 ? s.ic : ib), IterKind::kReduce}};
  std::vector<Var> loops = {Var("n"),   Var("ocb"), Var("oh"), Var("ow"), Var("r"),
                            Var("icb"), Var("kh"),  Var("kw"), Var("ici")};
  Stmt st = loop_nest(loops, ivs, make_block("conv", ivs, body, init));
  c.func = PrimFunc{"conv2d_nchwc", {c.X, c.Wp, c.bias}, st};
  if (epilogue) {
    std::vector<IterVar> eivs(ivs.begin(), ivs.begin() + 5);
    for (size_t k = 0; k < 5; ++k) eivs[k].var = Var("e" + loops[k].name());
    std::vector<Expr> idx(eivs.size());
    for (size_t k = 0; k < eivs.size(); ++k) idx[k] = eivs[k].var;
    Stmt upd = BufferStore::make(c.Y, epilogue(c.Y.load(idx), idx), idx);
    std::vector<Var> eloops = {Var("n"), Var("ocb"), Var("oh"), Var("ow"), Var("r")};
    Stmt est = loop_nest(eloops, eivs, make_block("epilogue", eivs, upd));
    c.func.body = SeqStmt::make({c.func.body, est});
    for (const Buffer& b : epilogue_params) c.func.params.push_back(b);
  }
  c.func.params.push_back(c.Y);
  c.func.flops = 2.0 * double(s.n * s.oc * s.oh * s.ow) * double(s.ic / s.groups * s.kh * s.kw);
  return c;
}

std::vector<float> pack_conv2d_weights_nchwc(const float* w, const Conv2dShape& s, int ib, int nr) {
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, ib, nr);
  INGOT_ICHECK(in.has_value(), "blocked conv weights: groups do not fit the blocks");
  int64_t ocb = ceil_div(s.oc, nr), taps = s.kh * s.kw, icg = s.ic / s.groups,
          ocg = s.oc / s.groups;
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
