// The block-form computes of the CPU's blocked convolutions (see blocked_conv.h): the direct
// convolution over a blocked or NCHW input and the depthwise one, each with its in-place epilogue.
#include "lower/compute/blocked_conv.h"

#include <string>

#include "support/channel_block.h"
#include "support/error.h"
#include "tir/block_nest.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::lower {

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

std::vector<int64_t> concat(std::vector<int64_t> head, const std::vector<int64_t>& mid,
                            const std::vector<int64_t>& tail) {
  head.insert(head.end(), mid.begin(), mid.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// `value` where `inside` holds (when defined), else 0.
Expr guarded(const Expr& inside, const Expr& value) {
  return inside.defined() ? select(inside, value, make_const(value.dtype(), 0)) : value;
}

// An index clamped into [0, extent) when `guard` (its test against the extent) is defined: a
// select evaluates both sides, so the guarded read stays inside the buffer.
Expr clamped(const Expr& index, const Expr& guard, int64_t extent) {
  return guard.defined() ? min(index, i64(extent - 1)) : index;
}

Expr conjunction(const Expr& a, const Expr& b) {
  return !a.defined() ? b : !b.defined() ? a : Expr(a && b);
}

// An output of another type than the sums (an 8-bit conv's, a bfloat16 one): Y[idx] =
// epilogue(acc[idx]) over the first `spatial` iter vars, a block "epilogue" after f's body; the
// epilogue's params, then Y (of `out`), then `acc` as a scratch parameter.
void append_converting_epilogue(PrimFunc& fn, const Buffer& acc, DataType out,
                                const std::vector<Var>& loops, const std::vector<IterVar>& ivs,
                                size_t spatial, const ConvEpilogue& epilogue,
                                const std::vector<Buffer>& epilogue_params) {
  Buffer Y = Buffer::make("Y", out, acc->shape);
  std::vector<IterVar> eivs(ivs.begin(), ivs.begin() + std::ptrdiff_t(spatial));
  std::vector<Var> eloops;
  std::vector<Expr> idx;
  for (size_t k = 0; k < eivs.size(); ++k) {
    eivs[k].var = Var("e" + loops[k].name());
    eloops.push_back(Var(loops[k].name()));
    idx.push_back(eivs[k].var);
  }
  Stmt requant = BufferStore::make(Y, epilogue(acc.load(idx), idx), idx);
  fn.body = SeqStmt::make(
      {fn.body, block_loop_nest(eloops, eivs, make_block("epilogue", eivs, requant))});
  for (const Buffer& b : epilogue_params) fn.params.push_back(b);
  fn.params.push_back(Y);
  fn.scratch_params.push_back(int(fn.params.size()));
  fn.params.push_back(acc);
}

// A float conv's epilogue, if any, then the rounding to the output's type `out`.
ConvEpilogue rounded(const ConvEpilogue& epilogue, DataType out) {
  return [epilogue, out](const Expr& v, const std::vector<Expr>& idx) {
    return cast(out, epilogue ? epilogue(v, idx) : v);
  };
}

}  // namespace

PrimFunc blocked_conv_compute(const BlockedConvShape& s, bool has_bias,
                              const ConvEpilogue& epilogue,
                              const std::vector<Buffer>& epilogue_params) {
  const size_t sp = s.in.size();
  INGOT_ICHECK(sp >= 1 && sp <= 3 && s.out.size() == sp && s.kernel.size() == sp &&
                   s.strides.size() == sp && s.dilations.size() == sp,
               "blocked conv: {} spatial dims", sp);
  const int64_t ocb = ceil_div(s.oc, s.nr), icg = s.ic / s.groups;
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, s.ib, s.nr);
  INGOT_ICHECK(in.has_value(),
               "blocked conv: {} groups of {} -> {} channels do not fit blocks {}/{}", s.groups,
               s.ic, s.oc, s.ib, s.nr);
  INGOT_ICHECK(!s.lane_groups || (s.ib == s.nr && s.nr % icg == 0 && in->count == 1),
               "blocked conv: lane groups of {} in blocks {}/{}", icg, s.ib, s.nr);
  INGOT_ICHECK(!s.int8 || (epilogue && s.groups == 1 && !s.lane_groups),
               "blocked conv: an 8-bit conv takes one group and an epilogue");
  INGOT_ICHECK(!s.bf16 || (!s.int8 && s.groups == 1 && s.ic % 2 == 0 && s.ib % 2 == 0),
               "blocked conv: bfloat16 products take one group and input lanes in pairs");
  const DataType f = DataType::f32(), i32 = DataType::i32(), bf = DataType::bf16();
  const DataType x_t = s.bf16 ? bf : !s.int8 ? f : s.x_signed ? DataType::i8() : DataType::u8();
  const DataType acc_t = s.int8 ? i32 : f;
  // The sums in a scratch buffer: the output has another type.
  const bool converted = s.int8 || s.out_type != f;
  INGOT_ICHECK(s.int8 || s.out_type == f || s.out_type == bf,
               "blocked conv: a float conv writes float32 or bfloat16");
  Buffer X = Buffer::make("X", x_t, concat({s.n, ceil_div(s.ic, s.ib)}, s.in, {s.ib}));
  Buffer W = Buffer::make("W",
                          s.int8   ? DataType::i8()
                          : s.bf16 ? bf
                                   : f,
                          concat({s.oc, icg}, s.kernel, {}));
  Buffer bias = Buffer::make("bias", acc_t, std::vector<int64_t>{s.oc});
  // (8-bit or a bfloat16 output: the accumulator; the epilogue writes Y.)
  Buffer Y = Buffer::make(converted ? "acc" : "Y", acc_t, concat({s.n, ocb}, s.out, {s.nr}));
  const std::string names = std::string("dhw").substr(3 - sp);
  Var vn("vn"), vb("vb"), vr("vr"), vc("vc"), vi("vi");
  std::vector<Var> vo, vk;
  for (char d : names) {
    vo.push_back(Var(std::string("v") + d));
    vk.push_back(Var(std::string("vk") + d));
  }
  // The output channel, and the guard of reads past OC in its last block.
  Expr o = Expr(vb) * s.nr + vr;
  Expr past_oc = s.oc % s.nr != 0 ? Expr(o < i64(s.oc)) : Expr();
  // The input: block and lane; the weight's input channel within the group, and the guard of
  // the lanes past IC in the last input block.
  std::vector<Expr> xi = {vn}, wi = {clamped(o, past_oc, s.oc)};
  Expr past_ic;
  {
    Expr first = in->in_per_step == 0    ? i64(0)
                 : in->out_per_step == 1 ? Expr(vb) * in->in_per_step
                                         : floordiv(vb, i64(in->out_per_step)) * in->in_per_step;
    xi.push_back(in->in_per_step == 0 ? Expr(vc) : first + vc);
    Expr local = s.lane_groups || in->count == 1 ? Expr(vi) : Expr(vc) * s.ib + vi;
    if (!s.lane_groups && in->count > 1 && in->count * s.ib > icg) past_ic = local < i64(icg);
    wi.push_back(clamped(local, past_ic, icg));
  }
  for (size_t d = 0; d < sp; ++d) {
    xi.push_back(Expr(vo[d]) * s.strides[d] + Expr(vk[d]) * s.dilations[d]);
    wi.push_back(vk[d]);
  }
  xi.push_back(s.lane_groups ? floordiv(Expr(vr), i64(icg)) * icg + vi : Expr(vi));
  std::vector<Expr> yi = {vn, vb};
  yi.insert(yi.end(), vo.begin(), vo.end());
  yi.push_back(vr);
  Expr w = guarded(conjunction(past_oc, past_ic), W.load(wi)), x = X.load(xi);
  if (s.int8) x = cast(i32, x), w = cast(i32, w);
  if (s.bf16) x = cast(f, x), w = cast(f, w);
  Stmt body = BufferStore::make(Y, Y.load(yi) + x * w, yi);
  Stmt init = BufferStore::make(
      Y, has_bias ? guarded(past_oc, bias.load({clamped(o, past_oc, s.oc)})) : make_const(acc_t, 0),
      yi);
  // Iteration order n, ob, o..., r | the reduction: cb, k..., ci.
  std::vector<IterVar> ivs = {{vn, i64(0), i64(s.n), IterKind::kSpatial},
                              {vb, i64(0), i64(ocb), IterKind::kSpatial}};
  std::vector<Var> loops = {Var("n"), Var("ocb")};
  for (size_t d = 0; d < sp; ++d) {
    ivs.push_back({vo[d], i64(0), i64(s.out[d]), IterKind::kSpatial});
    loops.push_back(Var(std::string("o") + names[d]));
  }
  ivs.push_back({vr, i64(0), i64(s.nr), IterKind::kSpatial});
  loops.push_back(Var("r"));
  const size_t spatial_iters = ivs.size();
  ivs.push_back({vc, i64(0), i64(in->count), IterKind::kReduce});
  loops.push_back(Var("icb"));
  for (size_t d = 0; d < sp; ++d) {
    ivs.push_back({vk[d], i64(0), i64(s.kernel[d]), IterKind::kReduce});
    loops.push_back(Var(std::string("k") + names[d]));
  }
  // One input block: only its real lanes; lane groups: the group's width.
  int64_t lanes = s.lane_groups ? icg : in->count == 1 && s.groups == 1 ? s.ic : s.ib;
  ivs.push_back({vi, i64(0), i64(lanes), IterKind::kReduce});
  loops.push_back(Var("ici"));
  PrimFunc fn{std::string(s.int8   ? "qconv"
                          : s.bf16 ? "conv_bf16_"
                                   : "conv") +
                  std::to_string(sp) + "d_blocked",
              {X, W},
              block_loop_nest(loops, ivs, make_block("conv", ivs, body, init))};
  if (has_bias) fn.params.push_back(bias);
  fn.flops = 2.0 * double(s.n * s.oc * product(s.out)) * double(icg * product(s.kernel));
  if (!converted) {
    if (epilogue)
      append_in_place_block(fn, "epilogue", Y, loops, ivs, spatial_iters, epilogue,
                            epilogue_params);
    fn.params.push_back(Y);
    return fn;
  }
  append_converting_epilogue(fn, Y, s.out_type, loops, ivs, spatial_iters,
                             s.int8 ? epilogue : rounded(epilogue, s.out_type), epilogue_params);
  return fn;
}

PrimFunc depthwise_conv_compute(const DepthwiseConvShape& s, bool has_bias,
                                const ConvEpilogue& epilogue,
                                const std::vector<Buffer>& epilogue_params) {
  INGOT_ICHECK(!s.int8 || (epilogue && s.top == 0 && s.left == 0),
               "depthwise conv: an 8-bit one reads a padded input and has an epilogue");
  const DataType f = DataType::f32(), i32 = DataType::i32();
  const DataType acc_t = s.int8 ? i32 : f;
  // The sums in a scratch buffer: the output has another type.
  const bool converted = s.int8 || s.out_type != f;
  INGOT_ICHECK(s.int8 || s.out_type == f || s.out_type == DataType::bf16(),
               "depthwise conv: a float conv writes float32 or bfloat16");
  Buffer X = Buffer::make("X",
                          !s.int8      ? f
                          : s.x_signed ? DataType::i8()
                                       : DataType::u8(),
                          std::vector<int64_t>{s.n, s.blocks, s.ih, s.iw, s.blk});
  Buffer W = Buffer::make("W", s.int8 ? DataType::i8() : f,
                          std::vector<int64_t>{s.channels, 1, s.kh, s.kw});
  Buffer bias = Buffer::make("bias", acc_t, std::vector<int64_t>{s.channels});
  // (8-bit or a bfloat16 output: the accumulator; the output is the epilogue's.)
  Buffer Y = Buffer::make(converted ? "acc" : "Y", acc_t,
                          std::vector<int64_t>{s.n, s.blocks, s.oh, s.ow, s.blk});
  Var vn("vn"), vb("vb"), vh("vh"), vw("vw"), vl("vl"), vkh("vkh"), vkw("vkw");
  Expr r = Expr(vh) * s.sh + Expr(vkh) * s.dh - s.top;
  Expr q = Expr(vw) * s.sw + Expr(vkw) * s.dw - s.left;
  Expr inside = r >= i64(0) && r < i64(s.ih) && q >= i64(0) && q < i64(s.iw);
  Expr x =
      X.load({vn, vb, max(min(r, i64(s.ih - 1)), i64(0)), max(min(q, i64(s.iw - 1)), i64(0)), vl});
  Expr c = Expr(vb) * s.blk + vl;
  Expr past_c = s.channels % s.blk != 0 ? Expr(c < i64(s.channels)) : Expr();
  std::vector<Expr> yi = {vn, vb, vh, vw, vl};
  Expr y = Y.load(yi);
  Expr w = guarded(past_c, W.load({clamped(c, past_c, s.channels), i64(0), vkh, vkw}));
  // (8-bit: the window always inside the padded input, no guard.)
  Stmt body =
      s.int8 ? BufferStore::make(Y, y + cast(i32, X.load({vn, vb, r, q, vl})) * cast(i32, w), yi)
             : BufferStore::make(Y, select(inside, y + x * w, y), yi);
  Stmt init =
      BufferStore::make(Y,
                        has_bias ? guarded(past_c, bias.load({clamped(c, past_c, s.channels)}))
                                 : make_const(acc_t, 0),
                        yi);
  std::vector<IterVar> ivs = {
      {vn, i64(0), i64(s.n), IterKind::kSpatial},   {vb, i64(0), i64(s.blocks), IterKind::kSpatial},
      {vh, i64(0), i64(s.oh), IterKind::kSpatial},  {vw, i64(0), i64(s.ow), IterKind::kSpatial},
      {vl, i64(0), i64(s.blk), IterKind::kSpatial}, {vkh, i64(0), i64(s.kh), IterKind::kReduce},
      {vkw, i64(0), i64(s.kw), IterKind::kReduce}};
  std::vector<Var> loops = {Var("n"), Var("cb"), Var("oh"), Var("ow"),
                            Var("l"), Var("kh"), Var("kw")};
  PrimFunc fn{s.int8 ? "depthwise_qconv2d_nchwc" : "depthwise_conv2d_nchwc",
              {X, W},
              block_loop_nest(loops, ivs, make_block("conv", ivs, body, init))};
  if (has_bias) fn.params.push_back(bias);
  fn.flops = 2.0 * double(s.n * s.channels * s.oh * s.ow * s.kh * s.kw);
  if (converted) {
    append_converting_epilogue(fn, Y, s.out_type, loops, ivs, 5,
                               s.int8 ? epilogue : rounded(epilogue, s.out_type), epilogue_params);
    return fn;
  }
  if (epilogue) append_in_place_block(fn, "epilogue", Y, loops, ivs, 5, epilogue, epilogue_params);
  fn.params.push_back(Y);
  return fn;
}

}  // namespace ingot::lower
