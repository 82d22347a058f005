// Value symbols' definitions, per defining op (see value_symbols.h).
#include "lower/value_symbols.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "lower/compute/common.h"
#include "lower/compute/resize_params.h"
#include "lower/value_elements.h"
#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::lower {

namespace {

using tir::Buffer;
using tir::Expr;

// What a definition may read: graph inputs (flat, as params), values computed from them
// (value_elements.h) and the graph's dims.
class Context {
 public:
  Context(const graph::Graph& g, const SymbolTable& symbols, tir::IRModule& mod)
      : g_(g),
        symbols_(symbols),
        mod_(mod),
        elements_(symbols, [this](const graph::Value* v, int64_t i) { return input(v, i); }) {}

  // Element i of `v` as int64 (a float truncated), and in its own dtype.
  Expr load(const graph::Value* v, int64_t i) {
    return tir::cast(tir::DataType::i64(), elements_.element(v, i));
  }
  Expr load_raw(const graph::Value* v, int64_t i) { return elements_.element(v, i); }
  Expr dim(const graph::Dim& d) const { return symbols_.expr(d); }
  Expr expr(const graph::SymExpr& e) const { return symbols_.expr(e); }
  const std::vector<Buffer>& params() const { return params_; }

 private:
  // Element i of graph input `v`: a parameter of the value function.
  Expr input(const graph::Value* v, int64_t i) {
    auto it = buffers_.find(v);
    if (it == buffers_.end()) {
      int index = -1;
      for (size_t k = 0; k < g_.inputs.size(); ++k)
        if (g_.inputs[k] == v) index = int(k);
      INGOT_ICHECK(index >= 0, "value symbol read from '{}', not a graph input", v->name);
      graph::SymExpr n = 1;
      for (const graph::Dim& d : v->type.shape) n = n * d.sym();
      Buffer b =
          Buffer::make(fmt::format("in{}", index), to_tir_dtype(v->type.dtype), {symbols_.expr(n)});
      mod_.value_fn_inputs.push_back(index);
      params_.push_back(b);
      it = buffers_.emplace(v, b).first;
    }
    return it->second.load({tir::i64(i)});
  }
  const graph::Graph& g_;
  const SymbolTable& symbols_;
  tir::IRModule& mod_;
  ValueElements elements_;
  std::map<const graph::Value*, Buffer> buffers_;
  std::vector<Buffer> params_;
};

struct Definition {
  Expr value;
  Expr valid;  // the input values make this symbol (and the node's shape) well defined
};

// Reshape(x, shape): dim i of the output from shape[i] (0 copies x's dim unless allowzero, -1
// takes what is left); valid when at most one entry is -1, none is below -1, a 0 copies a dim x
// has, and the dims multiply to x's element count.
Definition reshape_dim(const graph::Node& n, int axis, Context& c) {
  const graph::Value* x = n.inputs[0];
  const graph::Value* shape = n.inputs[1];
  const int64_t k = shape->type.shape[0].value;
  const bool allowzero = n.attrs.get_int("allowzero", 0) != 0;
  Expr total = tir::i64(1);
  for (const graph::Dim& d : x->type.shape) total = total * c.dim(d);
  std::vector<Expr> entry;
  Expr minus_ones = tir::i64(0), known = tir::i64(1);
  Expr valid = tir::make_const(tir::DataType::boolean(), 1);  // (as truth() below)
  for (int64_t j = 0; j < k; ++j) {
    Expr s = c.load(shape, j);
    if (!allowzero) {
      if (j < x->type.rank()) {
        s = tir::select(s == tir::i64(0), c.dim(x->type.shape[size_t(j)]), s);
      } else {
        valid = valid && s != tir::i64(0);
      }
    }
    valid = valid && s >= tir::i64(-1);
    minus_ones = minus_ones + tir::select(s == tir::i64(-1), tir::i64(1), tir::i64(0));
    known = known * tir::select(s == tir::i64(-1), tir::i64(1), s);
    entry.push_back(s);
  }
  Expr inferred = tir::select(known == tir::i64(0), tir::i64(0),
                              tir::floordiv(total, tir::max(known, tir::i64(1))));
  valid = valid && minus_ones <= tir::i64(1) &&
          tir::select(minus_ones == tir::i64(1), known != tir::i64(0) && inferred * known == total,
                      known == total);
  Expr e = entry[size_t(axis)];
  return {tir::select(e == tir::i64(-1), inferred, e), valid};
}

// Reduce*(x, axes) with the axes given at run time: each input dim is reduced when an axis names
// it (negative ones count from the end); valid when every axis is within [-rank, rank) and none
// repeats. Kept extent of dim d: 1 when reduced, else x's dim; with keepdims 0 the output's dim j
// is the j-th kept dim of x.
Expr truth() {
  return tir::make_const(tir::DataType::boolean(), 1);
}

// The run-time axes of input `axes` over a rank: whether each dim is named (negative axes count
// from the end); `valid` gains that every axis is in [-rank, rank) and none repeats.
std::vector<Expr> named_dims(const graph::Value* axes, int64_t rank, Context& c, Expr& valid) {
  const int64_t k = axes->type.shape[0].value;
  std::vector<Expr> a;
  for (int64_t j = 0; j < k; ++j) {
    Expr v = c.load(axes, j);
    valid = valid && v >= tir::i64(-rank) && v < tir::i64(rank);
    a.push_back(tir::select(v < tir::i64(0), v + tir::i64(rank), v));
    for (int64_t i = 0; i < j; ++i) valid = valid && a[size_t(i)] != a.back();
  }
  std::vector<Expr> named;
  for (int64_t d = 0; d < rank; ++d) {
    Expr hit = a[0] == tir::i64(d);
    for (int64_t j = 1; j < k; ++j) hit = hit || a[size_t(j)] == tir::i64(d);
    named.push_back(hit);
  }
  return named;
}

// The `index`-th of x's dims that `dropped` does not name.
Expr kept_dim(const graph::Value* x, const std::vector<Expr>& dropped, int64_t index, Context& c) {
  Expr dim = tir::i64(0), before = tir::i64(0);
  for (int64_t d = 0; d < x->type.rank(); ++d) {
    Expr kept = !dropped[size_t(d)];
    dim = dim + tir::select(kept && before == tir::i64(index), c.dim(x->type.shape[size_t(d)]),
                            tir::i64(0));
    before = before + tir::select(kept, tir::i64(1), tir::i64(0));
  }
  return dim;
}

// Squeeze(x, axes): valid when the axes are valid and name dims of size 1; dim j of the output
// is x's j-th dim not named.
Definition squeeze_dim(const graph::Node& n, int axis, Context& c) {
  const graph::Value* x = n.inputs[0];
  Expr valid = truth();
  std::vector<Expr> named = named_dims(n.inputs[1], x->type.rank(), c, valid);
  for (int64_t d = 0; d < x->type.rank(); ++d)
    valid = valid && (!named[size_t(d)] || c.dim(x->type.shape[size_t(d)]) == tir::i64(1));
  return {kept_dim(x, named, axis, c), valid};
}

// Unsqueeze(x, axes): the axes name positions of the output (rank x's + k); dim i is 1 where
// named, else x's next dim.
Definition unsqueeze_dim(const graph::Node& n, int axis, Context& c) {
  const graph::Value* x = n.inputs[0];
  const int64_t rank = n.outputs[0]->type.rank();
  Expr valid = truth();
  std::vector<Expr> named = named_dims(n.inputs[1], rank, c, valid);
  Expr before = tir::i64(0);  // new dims before `axis`
  for (int64_t i = 0; i < axis; ++i)
    before = before + tir::select(named[size_t(i)], tir::i64(1), tir::i64(0));
  Expr from_x = tir::i64(0);
  for (int64_t d = 0; d < x->type.rank(); ++d)
    from_x = from_x + tir::select(tir::i64(axis) - before == tir::i64(d),
                                  c.dim(x->type.shape[size_t(d)]), tir::i64(0));
  return {tir::select(named[size_t(axis)], tir::i64(1), from_x), valid};
}

// Expand(x, shape): right-aligned broadcasting of x's dims and the shape's values; valid when
// each pair is equal or one of them is 1.
Definition expand_dim(const graph::Node& n, int axis, Context& c) {
  const graph::Value* x = n.inputs[0];
  const graph::Value* shape = n.inputs[1];
  const int64_t r = x->type.rank(), k = shape->type.shape[0].value, rank = std::max(r, k);
  const int64_t dx = axis - (rank - r), ds = axis - (rank - k);
  Expr xd = dx >= 0 ? c.dim(x->type.shape[size_t(dx)]) : tir::i64(1);
  Expr sd = ds >= 0 ? c.load(shape, ds) : tir::i64(1);
  Expr valid = sd >= tir::i64(0) && (xd == tir::i64(1) || sd == tir::i64(1) || xd == sd);
  return {tir::select(sd == tir::i64(1), xd, sd), valid};
}

// TopK(x, K): k, within [0, the axis' size].
Definition topk_k(const graph::Node& n, int axis, Context& c) {
  Expr k = c.load(n.inputs[1], 0);
  return {k, k >= tir::i64(0) && k <= c.dim(n.inputs[0]->type.shape[size_t(axis)])};
}

// Split(x, split): output i's size along the axis is split[i]; valid when none is negative and
// they add up to the dim.
Definition split_part(const graph::Node& n, const std::string& name, Context& c) {
  const int64_t axis = n.attrs.get_int("axis", 0);
  Expr total = tir::i64(0), valid = truth(), part;
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    Expr s = c.load(n.inputs[1], int64_t(o));
    valid = valid && s >= tir::i64(0);
    total = total + s;
    if (n.outputs[o] != nullptr && ops::value_symbol_axis(n, int(o), name) >= 0) part = s;
  }
  INGOT_ICHECK(part.defined(), "{}: no value symbol '{}'", n.describe(), name);
  valid = valid && total == c.dim(n.inputs[0]->type.shape[size_t(axis)]);
  return {part, valid};
}

// Slice(x, starts, ends, axes, steps), each an attribute or an input (constant or read at run
// time): for dim d, the entry whose axis is d (none: the whole dim), clamped as ONNX does.
// Symbols: the length, the first index read and the step. Valid when no step is 0 and the axes
// are valid.
Definition slice_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::Value* x = n.inputs[0];
  const int64_t r = x->type.rank();
  auto input = [&](int slot) -> const graph::Value* {
    return slot < int(n.inputs.size()) ? n.inputs[size_t(slot)] : nullptr;
  };
  auto entry = [&](int slot, const char* attr, int64_t j, int64_t def) -> Expr {
    if (const graph::Value* v = input(slot)) return c.load(v, j);
    if (n.attrs.has(attr)) return tir::i64(n.attrs.get_ints(attr).at(size_t(j)));
    return tir::i64(def);
  };
  int64_t k = 0;
  if (const graph::Value* v = input(1)) {
    k = v->type.shape[0].value;
  } else {
    k = int64_t(n.attrs.get_ints("starts").size());
  }
  Expr valid = truth();
  std::vector<Expr> axis_of;
  for (int64_t j = 0; j < k; ++j) {
    Expr a = entry(3, "axes", j, j);
    if (input(3) != nullptr) {
      valid = valid && a >= tir::i64(-r) && a < tir::i64(r);
      a = tir::select(a < tir::i64(0), a + tir::i64(r), a);
      for (const Expr& b : axis_of) valid = valid && a != b;
    } else if (n.attrs.has("axes")) {
      int64_t v = n.attrs.get_ints("axes").at(size_t(j));
      a = tir::i64(v < 0 ? v + r : v);
    }
    axis_of.push_back(a);
    valid = valid && entry(4, "steps", j, 1) != tir::i64(0);
  }
  for (int64_t d = 0; d < r; ++d) {
    const bool is_len = ops::value_symbol_axis(n, 0, name) == d;
    if (!is_len && name != ops::slice_start(n, int(d)) && name != ops::slice_step(n, int(d)))
      continue;
    const Expr dim = c.dim(x->type.shape[size_t(d)]);
    Expr hit = tir::make_const(tir::DataType::boolean(), 0), s = tir::i64(0), e = dim,
         st = tir::i64(1);
    for (int64_t j = 0; j < k; ++j) {
      Expr on = axis_of[size_t(j)] == tir::i64(d);
      s = tir::select(on, entry(1, "starts", j, 0), s);
      e = tir::select(on, entry(2, "ends", j, 0), e);
      st = tir::select(on, entry(4, "steps", j, 1), st);
      hit = hit || on;
    }
    s = tir::select(s < tir::i64(0), s + dim, s);
    e = tir::select(e < tir::i64(0), e + dim, e);
    auto clamp = [](Expr v, Expr lo, Expr hi) { return tir::min(tir::max(v, lo), hi); };
    Expr up = st > tir::i64(0);
    Expr s2 =
        tir::select(up, clamp(s, tir::i64(0), dim), clamp(s, tir::i64(-1), dim - tir::i64(1)));
    Expr e2 =
        tir::select(up, clamp(e, tir::i64(0), dim), clamp(e, tir::i64(-1), dim - tir::i64(1)));
    Expr mag = tir::select(up, st, tir::i64(0) - st);
    Expr span = tir::select(up, e2 - s2, s2 - e2);
    Expr len =
        tir::max(tir::floordiv(span + mag - tir::i64(1), tir::max(mag, tir::i64(1))), tir::i64(0));
    if (is_len) return {len, valid};
    if (name == ops::slice_start(n, int(d)))
      return {tir::select(len > tir::i64(0), s2, tir::i64(0)), valid};
    return {st, valid};
  }
  fail_internal("{}: no value symbol '{}'", n.describe(), name);
}

// Tile(x, repeats): dim d is x's times repeats[d], none negative.
Definition tile_dim(const graph::Node& n, int axis, Context& c) {
  Expr r = c.load(n.inputs[1], axis);
  return {c.dim(n.inputs[0]->type.shape[size_t(axis)]) * r, r >= tir::i64(0)};
}

// OneHot(indices, depth, values): depth, truncated, at least 1.
Definition one_hot_depth(const graph::Node& n, Context& c) {
  Expr d = c.load(n.inputs[1], 0);
  return {d, d >= tir::i64(1)};
}

// Range(start, limit, delta): max(ceil((limit - start) / delta), 0), in float64; delta not 0.
Definition range_length(const graph::Node& n, Context& c) {
  auto f64 = [&](int i) {
    return tir::cast(tir::DataType::f64(), c.load_raw(n.inputs[size_t(i)], 0));
  };
  Expr s = f64(0), l = f64(1), d = f64(2);
  Expr zero = tir::make_const(tir::DataType::f64(), 0);
  Expr count =
      tir::call(tir::Intrinsic::ceil,
                {(l - s) / tir::select(d == zero, tir::make_const(tir::DataType::f64(), 1), d)});
  return {tir::max(tir::cast(tir::DataType::i64(), count), tir::i64(0)), d != zero};
}

// Hann/Hamming/BlackmanWindow(size): the size, not negative.
Definition window_size(const graph::Node& n, Context& c) {
  Expr v = c.load(n.inputs[0], 0);
  return {v, v >= tir::i64(0)};
}

// ConstantOfShape(shape): the shape's values, none negative.
Definition constant_of_shape_dim(const graph::Node& n, int axis, Context& c) {
  Expr v = c.load(n.inputs[0], axis);
  return {v, v >= tir::i64(0)};
}

Definition reduce_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::Value* x = n.inputs[0];
  const int64_t r = x->type.rank();
  Expr valid = truth();
  std::vector<Expr> reduced = named_dims(n.inputs[1], r, c, valid);
  for (int64_t d = 0; d < r; ++d)
    if (name == ops::kept_extent(n, int(d)))
      return {tir::select(reduced[size_t(d)], tir::i64(1), c.dim(x->type.shape[size_t(d)])), valid};
  const int axis = ops::value_symbol_axis(n, 0, name);
  INGOT_ICHECK(axis >= 0, "{}: no value symbol '{}'", n.describe(), name);
  if (n.attrs.get_int("keepdims", 1) != 0)
    return {tir::select(reduced[size_t(axis)], tir::i64(1), c.dim(x->type.shape[size_t(axis)])),
            valid};
  return {kept_dim(x, reduced, axis, c), valid};
}

// NonZero, Compress: before the run, the size's bound (what the plan and the outputs are sized
// for); the counting kernel writes the true size during the run.
Definition data_dependent_bound(const graph::Node& n, const std::string& name, Context& c) {
  std::optional<graph::SymExpr> bound = ops::value_symbol_bound(n, name);
  INGOT_ICHECK(bound.has_value(), "{}: no bound for '{}'", n.describe(), name);
  return {c.expr(*bound), truth()};
}

// Pad(x, pads, constant_value, axes) with the pads or axes given at run time: the pads before
// and after each dim (0 for a dim no axis names; negative axes count from the end); out dim d
// is x's plus both. Valid when every axis is in range and none repeats, and no dim goes
// negative.
Definition pad_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::Value* x = n.inputs[0];
  const int64_t r = x->type.rank();
  auto input = [&](size_t slot) -> const graph::Value* {
    return slot < n.inputs.size() ? n.inputs[slot] : nullptr;
  };
  const graph::Value* pads = input(1);
  const int64_t k =
      pads ? pads->type.shape[0].value / 2 : int64_t(n.attrs.get_ints("pads").size()) / 2;
  auto pad = [&](int64_t j) {
    return pads ? c.load(pads, j) : tir::i64(n.attrs.get_ints("pads").at(size_t(j)));
  };
  Expr valid = truth();
  std::vector<Expr> axis_of;
  for (int64_t j = 0; j < k; ++j) {
    Expr a = tir::i64(j);
    if (const graph::Value* axes = input(3)) {
      a = c.load(axes, j);
      valid = valid && a >= tir::i64(-r) && a < tir::i64(r);
    } else if (n.attrs.has("axes")) {
      a = tir::i64(n.attrs.get_ints("axes").at(size_t(j)));
    }
    a = tir::select(a < tir::i64(0), a + tir::i64(r), a);
    for (const Expr& b : axis_of) valid = valid && a != b;
    axis_of.push_back(a);
  }
  // (Each dim's own checks: a refusal names the dim that goes negative.)
  const bool reflect = n.attrs.get_string("mode", "constant") == "reflect";
  for (int64_t d = 0; d < r; ++d) {
    Expr b = tir::i64(0), e = tir::i64(0);
    for (int64_t j = 0; j < k; ++j) {
      Expr on = axis_of[size_t(j)] == tir::i64(d);
      b = b + tir::select(on, pad(j), tir::i64(0));
      e = e + tir::select(on, pad(j + k), tir::i64(0));
    }
    const Expr dim = c.dim(x->type.shape[size_t(d)]);
    Expr ok = valid && dim + b + e >= tir::i64(0);
    if (reflect) {  // as ONNX Runtime: each pad below the length left after the crops
      const Expr kept = dim + tir::min(b, tir::i64(0)) + tir::min(e, tir::i64(0));
      ok = ok && tir::max(b, tir::i64(0)) < kept && tir::max(e, tir::i64(0)) < kept;
    }
    if (name == ops::pad_begin(n, int(d))) return {b, valid};
    if (ops::value_symbol_axis(n, 0, name) == d) return {dim + b + e, ok};
  }
  fail_internal("{} has no value symbol '{}'", n.describe(), name);
}

// CenterCropPad(x, shape) with the shape given at run time: the dims `axes` names become the
// shape's values, cropped or padded about the centre (the leading side gets the floor); valid
// when none is negative.
Definition center_crop_pad_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::Value* x = n.inputs[0];
  const std::vector<int64_t> axes = n.attrs.get_ints("axes");
  for (int64_t d = 0; d < x->type.rank(); ++d) {
    const Expr in = c.dim(x->type.shape[size_t(d)]);
    Expr out = in, valid = truth();
    for (size_t j = 0; j < axes.size(); ++j)
      if (axes[j] == d) {
        out = c.load(n.inputs[1], int64_t(j));
        valid = out >= tir::i64(0);
      }
    // (floordiv of a negative difference rounds down; the crop takes the floor of its half)
    const Expr begin = tir::select(out >= in, tir::floordiv(out - in, tir::i64(2)),
                                   tir::i64(0) - tir::floordiv(in - out, tir::i64(2)));
    if (name == ops::pad_begin(n, int(d))) return {begin, valid};
    if (ops::value_symbol_axis(n, 0, name) == d) return {out, valid};
  }
  fail_internal("{} has no value symbol '{}'", n.describe(), name);
}

// AffineGrid(theta, size): spatial dim a (1..r) of the output is size[a + 1]; valid when it is
// positive and size[0] is theta's batch.
Definition affine_grid_dim(const graph::Node& n, int axis, Context& c) {
  const Expr v = c.load(n.inputs[1], axis + 1);
  return {v, v >= tir::i64(1) && c.load(n.inputs[1], 0) == c.dim(n.inputs[0]->type.shape[0])};
}

// Resize with run-time roi, scales or sizes: dim `axes[j]` is the length resize_axes gives
// (floor(scale * in), the size, or the policy's rounded length); valid per its checks.
Definition resize_dim(const graph::Node& n, const std::string& name, Context& c) {
  const std::vector<int64_t> axes = n.attrs.get_ints("axes");
  std::vector<Expr> in;
  for (int64_t d : axes) in.push_back(c.dim(n.inputs[0]->type.shape[size_t(d)]));
  ResizeLoad load = [&](int slot, int64_t j) {
    return tir::cast(tir::DataType::f64(), c.load_raw(n.inputs[size_t(slot)], j));
  };
  std::vector<ResizeAxis> params = resize_axes(n, in, load);
  for (size_t j = 0; j < axes.size(); ++j)
    if (ops::value_symbol_axis(n, 0, name) == int(axes[j]))
      return {params[j].length, params[j].valid};
  fail_internal("{} has no value symbol '{}'", n.describe(), name);
}

// DFT with its axis given at run time: the axis made non-negative, valid in [-r, -2] or
// [0, r - 2]; dim d of the output is the transformed length where the axis is d, else x's.
Definition dft_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::Value* x = n.inputs[0];
  const int64_t r = x->type.rank();
  const Expr a = c.load(n.inputs[2], 0);
  Expr valid =
      (a >= tir::i64(-r) && a <= tir::i64(-2)) || (a >= tir::i64(0) && a <= tir::i64(r - 2));
  const Expr axis = tir::select(a < tir::i64(0), a + tir::i64(r), a);
  if (name == ops::dft_axis(n)) return {axis, valid};
  const bool inverse = n.attrs.get_int("inverse", 0) != 0;
  const bool onesided = n.attrs.get_int("onesided", 0) != 0;
  for (int64_t d = 0; d + 1 < r; ++d) {
    if (ops::value_symbol_axis(n, 0, name) != d) continue;
    const Expr in = c.dim(x->type.shape[size_t(d)]);
    Expr len = n.attrs.has("dft_length") ? tir::i64(n.attrs.get_int("dft_length", 1))
               : inverse && onesided     ? tir::i64(2) * (in - tir::i64(1))
                                         : in;
    Expr out = onesided && !inverse ? tir::floordiv(len, tir::i64(2)) + tir::i64(1) : len;
    return {tir::select(axis == tir::i64(d), out, in),
            valid && (axis != tir::i64(d) || len >= tir::i64(1))};
  }
  fail_internal("{} has no value symbol '{}'", n.describe(), name);
}

// STFT with its frame_step or frame_length given at run time: the step (at least 1), the frame
// length (in [1, the signal's length], the window's when there is one), the frame count
// (length - frame) / step + 1 and the bin count (frame / 2 + 1 one-sided).
Definition stft_dim(const graph::Node& n, const std::string& name, Context& c) {
  auto given = [&](size_t slot) { return slot < n.inputs.size() && n.inputs[slot] != nullptr; };
  const Expr length = c.dim(n.inputs[0]->type.shape[1]);
  const Expr step = given(1) ? c.load(n.inputs[1], 0) : tir::i64(n.attrs.get_int("frame_step", 1));
  Expr frame = given(3)                      ? c.load(n.inputs[3], 0)
               : n.attrs.has("frame_length") ? tir::i64(n.attrs.get_int("frame_length", 1))
               : given(2)                    ? c.dim(n.inputs[2]->type.shape[0])
                                             : length;
  Expr valid = step >= tir::i64(1) && frame >= tir::i64(1) && frame <= length;
  if (given(2)) valid = valid && frame == c.dim(n.inputs[2]->type.shape[0]);
  if (name == ops::stft_step(n)) return {step, valid};
  if (name == ops::stft_frame(n)) return {frame, valid};
  if (ops::value_symbol_axis(n, 0, name) == 1)
    return {tir::floordiv(length - frame, tir::max(step, tir::i64(1))) + tir::i64(1), valid};
  if (ops::value_symbol_axis(n, 0, name) == 2)
    return {n.attrs.get_int("onesided", 1) != 0 ? tir::floordiv(frame, tir::i64(2)) + tir::i64(1)
                                                : frame,
            valid};
  fail_internal("{} has no value symbol '{}'", n.describe(), name);
}

// MelWeightMatrix with its num_mel_bins or dft_length given at run time: [dft_length / 2 + 1,
// num_mel_bins], both at least 1.
Definition mel_dim(const graph::Node& n, const std::string& name, Context& c) {
  auto value = [&](size_t slot, const char* attr) {
    return n.inputs[slot] != nullptr ? c.load(n.inputs[slot], 0)
                                     : tir::i64(n.attrs.get_int(attr, 1));
  };
  const Expr bins = value(0, "num_mel_bins"), len = value(1, "dft_length");
  const Expr valid = bins >= tir::i64(1) && len >= tir::i64(1);
  const int axis = ops::value_symbol_axis(n, 0, name);
  INGOT_ICHECK(axis >= 0, "{}: no value symbol '{}'", n.describe(), name);
  return {axis == 0 ? tir::floordiv(len, tir::i64(2)) + tir::i64(1) : bins, valid};
}

// MaxUnpool(X, I, output_shape) with the output_shape given at run time: dim d is
// output_shape[d]; the batch and channels must be X's (as ONNX Runtime requires), a spatial dim
// at least the unpooled size the indices refer to.
Definition max_unpool_dim(const graph::Node& n, int axis, Context& c) {
  const Expr v = c.load(n.inputs[2], axis);
  const graph::TensorType& x = n.inputs[0]->type;
  Expr least;
  if (axis >= 2) {
    const size_t k = size_t(x.rank() - 2), d = size_t(axis - 2);
    const std::vector<int64_t> kernel = n.attrs.get_ints("kernel_shape");
    const std::vector<int64_t> strides = n.attrs.get_ints("strides");
    const std::vector<int64_t> pads = n.attrs.get_ints("pads");
    least = (c.dim(x.shape[size_t(axis)]) - tir::i64(1)) * tir::i64(strides.at(d)) -
            tir::i64(pads.at(d) + pads.at(k + d)) + tir::i64(kernel.at(d));
  } else {
    return {v, v == c.dim(x.shape[size_t(axis)])};
  }
  return {v, v >= least};
}

// Col2Im with its image_shape or block_shape given at run time: each image and block dim at
// least 1, the padded image at least the dilated block, the block grid's size x's dim 2 and
// the block size dividing x's dim 1 (the channels are the quotient).
Definition col2im_dim(const graph::Node& n, const std::string& name, Context& c) {
  const graph::TensorType& x = n.inputs[0]->type;
  auto value = [&](size_t slot, const char* attr, int64_t d) {
    return n.inputs[slot] != nullptr ? c.load(n.inputs[slot], d)
                                     : tir::i64(n.attrs.get_ints(attr).at(size_t(d)));
  };
  const std::vector<int64_t> dil = n.attrs.get_ints("dilations");
  const std::vector<int64_t> strides = n.attrs.get_ints("strides");
  const std::vector<int64_t> pads = n.attrs.get_ints("pads");
  const int64_t r = int64_t(dil.size());
  Expr valid, blocks = tir::i64(1), block_size = tir::i64(1);
  for (int64_t d = 0; d < r; ++d) {
    const Expr image = value(1, "image_shape", d), block = value(2, "block_shape", d);
    const Expr span = tir::i64(dil[size_t(d)]) * (block - tir::i64(1)) + tir::i64(1);
    const Expr padded = image + tir::i64(pads[size_t(d)] + pads[size_t(r + d)]);
    const Expr ok = image >= tir::i64(1) && block >= tir::i64(1) && padded >= span;
    valid = valid.defined() ? (valid && ok) : ok;
    blocks = blocks * (tir::floordiv(padded - span, tir::i64(strides[size_t(d)])) + tir::i64(1));
    block_size = block_size * block;
    if (name == ops::col2im_block(n, int(d))) return {block, valid};
  }
  const Expr channels = c.dim(x.shape[1]);
  valid = valid && blocks == c.dim(x.shape[2]) &&
          tir::floormod(channels, tir::max(block_size, tir::i64(1))) == tir::i64(0);
  const int axis = ops::value_symbol_axis(n, 0, name);
  if (axis == 1) return {tir::floordiv(channels, tir::max(block_size, tir::i64(1))), valid};
  if (axis >= 2) return {value(1, "image_shape", axis - 2), valid};
  fail_internal("{} has no value symbol '{}'", n.describe(), name);
}

Definition define(const graph::Node& n, const std::string& name, Context& c) {
  if (ops::col2im_reads_values(n)) return col2im_dim(n, name, c);
  if (ops::mel_reads_values(n)) return mel_dim(n, name, c);
  if (ops::stft_reads_values(n)) return stft_dim(n, name, c);
  if (ops::dft_reads_axis(n)) return dft_dim(n, name, c);
  if (ops::resize_reads_values(n)) return resize_dim(n, name, c);
  if (n.op == ops::OpKind::CenterCropPad) return center_crop_pad_dim(n, name, c);
  if (ops::pad_reads_values(n)) return pad_dim(n, name, c);
  if (ops::has_data_dependent_size(n)) return data_dependent_bound(n, name, c);
  if (ops::has_value_axes(n)) return reduce_dim(n, name, c);
  if (n.op == ops::OpKind::Split) return split_part(n, name, c);
  if (ops::slice_reads_values(n)) return slice_dim(n, name, c);
  const int axis = ops::value_symbol_axis(n, 0, name);
  switch (n.op) {
    case ops::OpKind::Reshape:
      return reshape_dim(n, axis, c);
    case ops::OpKind::Squeeze:
      return squeeze_dim(n, axis, c);
    case ops::OpKind::Unsqueeze:
      return unsqueeze_dim(n, axis, c);
    case ops::OpKind::Expand:
      return expand_dim(n, axis, c);
    case ops::OpKind::ConstantOfShape:
      return constant_of_shape_dim(n, axis, c);
    case ops::OpKind::AffineGrid:
      return affine_grid_dim(n, axis, c);
    case ops::OpKind::MaxUnpool:
      return max_unpool_dim(n, axis, c);
    case ops::OpKind::TopK:
      return topk_k(n, axis, c);
    case ops::OpKind::Tile:
      return tile_dim(n, axis, c);
    case ops::OpKind::OneHot:
      return one_hot_depth(n, c);
    case ops::OpKind::Range:
      return range_length(n, c);
    case ops::OpKind::HannWindow:
    case ops::OpKind::HammingWindow:
    case ops::OpKind::BlackmanWindow:
      return window_size(n, c);
    default:
      break;
  }
  fail_internal("{} has no definition of value symbol '{}'", n.describe(), name);
}

}  // namespace

void build_value_fn(const graph::Graph& g, const SymbolTable& symbols, tir::IRModule& mod) {
  if (symbols.value_symbols().empty()) return;
  const size_t n = symbols.symbols().size();
  Buffer table =
      Buffer::make("symbols", tir::DataType::i64(), std::vector<int64_t>{int64_t(n + 1)});
  Context c(g, symbols, mod);
  tir::VarMap earlier;  // value symbols already written: read back from the table
  std::vector<tir::Stmt> stores;
  Expr status = tir::i64(0);
  std::vector<std::pair<size_t, Expr>> checks;
  const size_t n_symbols_none = std::numeric_limits<size_t>::max();
  for (const SymbolTable::ValueSymbol& vs : symbols.value_symbols()) {
    const tir::SymbolDesc& sym = symbols.symbols()[vs.index];
    Definition d = define(*vs.node, sym.name, c);
    stores.push_back(tir::BufferStore::make(table, tir::substitute(d.value, earlier),
                                            {tir::i64(int64_t(vs.index))}));
    checks.push_back({vs.index, tir::substitute(d.valid, earlier)});
    earlier[sym.var.node()] = table.load({tir::i64(int64_t(vs.index))});
  }
  // Dims inference took to be equal where one is a value symbol's expression (a reshaped K into
  // a MatMul): checked too, reported under the first value symbol they read.
  for (const auto& n : g.nodes()) {
    for (const auto& [a, b] : n->assumed_equal) {
      size_t first = n_symbols_none;
      for (const std::string& s : (a - b).symbols())
        for (const SymbolTable::ValueSymbol& vs : symbols.value_symbols())
          if (symbols.symbols()[vs.index].name == s) first = std::min(first, vs.index);
      if (first == n_symbols_none) continue;
      checks.push_back({first, tir::substitute(symbols.expr(a) == symbols.expr(b), earlier)});
    }
  }
  for (auto it = checks.rbegin(); it != checks.rend(); ++it)  // the first failing one wins
    status = tir::select(it->second, status, tir::i64(int64_t(it->first) + 1));
  stores.push_back(tir::BufferStore::make(table, status, {tir::i64(int64_t(n))}));
  tir::PrimFunc f;
  f.name = "ingot_value_symbols";
  f.params = c.params();
  f.params.push_back(table);
  f.body = tir::SeqStmt::make(stores);
  for (const tir::SymbolDesc& s : symbols.symbols()) {
    bool is_value = false;
    for (const SymbolTable::ValueSymbol& vs : symbols.value_symbols())
      is_value = is_value || vs.index == size_t(&s - symbols.symbols().data());
    if (!is_value) f.shape_vars.push_back(s.var);
  }
  mod.value_fn = std::move(f);
}

}  // namespace ingot::lower
