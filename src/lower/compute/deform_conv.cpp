// Compute rule of DeformConv (N-d, grouped, offset groups, optional bias and mask). Per output
// element: bias + the sum over the group's input channels and the kernel taps of
// W * mask * X sampled at the tap's position moved by its offset, the sample (multi)linear over
// the 2^r surrounding pixels with zeros outside the input (GridSample's linear / zeros /
// align_corners=1 sampling, as the ONNX reference defines it). Positions and weights are in
// X's float type (float32 for float16).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_deform_conv(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& w = inputs.at(1);
  const Buffer& offset = inputs.at(2);
  Buffer bias = inputs.size() > 3 ? inputs[3] : Buffer();
  Buffer mask = inputs.size() > 4 ? inputs[4] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x), ws = const_shape(w), ys = const_shape(y);
  size_t r = xs.size() - 2;
  const auto& at = node.attrs;
  std::vector<int64_t> strides = at.get_ints("strides"), dil = at.get_ints("dilations"),
                       pads = at.get_ints("pads");
  int64_t group = at.get_int("group", 1), og = at.get_int("offset_group", 1);
  INGOT_ICHECK(strides.size() == r && dil.size() == r && pads.size() == 2 * r,
               "{}: DeformConv attributes do not match rank {}", node_label(node), xs.size());
  std::vector<int64_t> kernel(ws.begin() + 2, ws.end());
  int64_t taps = num_elements(kernel), cg = ws[1], mg = ys[1] / group, cog = xs[1] / og;
  DataType ct = accum_dtype(x->dtype);
  auto c = [&](double v) { return make_const(ct, v); };

  return loop_nest(ys, "o", [&](const Index& o) {
    Accumulator acc("acc", ct);
    Expr g = floordiv(o[1], i64(mg));  // the output channel's group
    Stmt sum = serial_loop("ci", i64(0), cg, [&](Expr ci) {
      Expr ch = g * i64(cg) + ci;         // input channel
      Expr ogi = floordiv(ch, i64(cog));  // its offset group
      return serial_nest(kernel, "k", [&](const Index& k) {
        Expr kflat;
        for (size_t d = 0; d < r; ++d)
          kflat = kflat.defined() ? kflat * i64(kernel[d]) + k[d] : k[d];
        // Sampling position per dim, its floor and fraction.
        std::vector<std::pair<Var, Expr>> lets;
        std::vector<Expr> lo(r), frac(r);
        for (size_t d = 0; d < r; ++d) {
          Index oi{o[0], (ogi * i64(taps) + kflat) * i64(int64_t(r)) + i64(int64_t(d))};
          for (size_t e = 0; e < r; ++e) oi.push_back(o[2 + e]);
          Expr base = o[2 + d] * i64(strides[d]) - i64(pads[d]) + k[d] * i64(dil[d]);
          Expr p = cast(ct, base) + cast(ct, offset.load(oi));
          // Far outside, every tap reads a zero; keep the index conversion in range.
          p = max(min(p, c(double(xs[2 + d] + 1))), c(-2));
          std::string s = std::to_string(d);
          Var pv("p" + s, ct), fv("p_floor" + s, DataType::i64());
          lets.push_back({pv, p});
          lets.push_back({fv, cast(DataType::i64(), call(Intrinsic::floor, {Expr(pv)}))});
          lo[d] = fv;
          frac[d] = Expr(pv) - cast(ct, Expr(fv));
        }
        // The 2^r corners, weighted.
        Expr sample;
        for (int64_t corner = 0; corner < (int64_t(1) << r); ++corner) {
          Index xi{o[0], ch};
          Expr valid, wt;
          for (size_t d = 0; d < r; ++d) {
            bool up = (corner >> (r - 1 - d)) & 1;
            Expr i = up ? lo[d] + i64(1) : lo[d];
            Expr ok = i >= i64(0) && i < i64(xs[2 + d]);
            valid = valid.defined() ? (valid && ok) : ok;
            xi.push_back(max(min(i, i64(xs[2 + d] - 1)), i64(0)));
            Expr wd = up ? frac[d] : c(1) - frac[d];
            wt = wt.defined() ? wt * wd : wd;
          }
          Expr v = select(valid, cast(ct, x.load(xi)), c(0));
          sample = sample.defined() ? sample + wt * v : wt * v;
        }
        Index wi{o[1], ci};
        wi.insert(wi.end(), k.begin(), k.end());
        Expr term = cast(ct, w.load(wi)) * sample;
        if (mask.defined()) {
          Index mi{o[0], ogi * i64(taps) + kflat};
          for (size_t e = 0; e < r; ++e) mi.push_back(o[2 + e]);
          term = term * cast(ct, mask.load(mi));
        }
        Stmt s = acc.set(acc.get() + term);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
          s = LetStmt::make(it->first, it->second, s);
        return s;
      });
    });
    Expr init = bias.defined() ? cast(ct, bias.load({o[1]})) : c(0);
    return acc.scope(
        SeqStmt::make({acc.set(init), sum, BufferStore::make(y, cast(y->dtype, acc.get()), o)}));
  });
}

}  // namespace ingot::lower
