// Compute rules of Trilu (keep one triangle of the last two dims, zero the rest), EyeLike (ones on
// diagonal k), DepthToSpace / SpaceToDepth (DCR and CRD block orders), GatherElements (negative
// indices wrap) and ReverseSequence (a gather along the time axis; lengths clamped to the axis).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_trilu(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  bool upper = node.attrs.get_int("upper", 1) != 0;
  Expr k = i64(0);
  if (inputs.size() > 1 && inputs[1].defined())
    k = cast(DataType::i64(), inputs[1].load(scalar_index(inputs[1])));
  int r = y.ndim();
  Expr zero = make_const(y->dtype, 0.0);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr diff = idx[r - 1] - idx[r - 2];  // column - row
    Expr keep = upper ? diff >= k : diff <= k;
    return BufferStore::make(y, select(keep, x.load(idx), zero), idx);
  });
}

// Both directions written as out[n, oc, oh, ow] = x[n, ic, ih, iw].
Stmt compute_depth_space(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  int64_t b = node.attrs.get_int("blocksize", 1);
  bool d2s = node.op == ops::OpKind::DepthToSpace;
  bool crd = node.attrs.get_string("mode", "DCR") == "CRD";
  int64_t xc = const_shape(x)[1], yc = const_shape(y)[1];
  Expr bb = i64(b);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index xi{idx[0]};
    if (d2s) {  // y[n, c, h*b+i, w*b+j]
      Expr i = floormod(idx[2], bb), j = floormod(idx[3], bb);
      xi.push_back(crd ? idx[1] * i64(b * b) + i * bb + j : (i * bb + j) * i64(yc) + idx[1]);
      xi.push_back(floordiv(idx[2], bb));
      xi.push_back(floordiv(idx[3], bb));
    } else {  // DCR: y[n, (i*b+j)*C + c, h, w] = x[n, c, h*b+i, w*b+j]; CRD: y[n, c*b*b + i*b+j]
      Expr c = crd ? floordiv(idx[1], i64(b * b)) : floormod(idx[1], i64(xc));
      Expr ij = crd ? floormod(idx[1], i64(b * b)) : floordiv(idx[1], i64(xc));
      xi.push_back(c);
      xi.push_back(idx[2] * bb + floordiv(ij, bb));
      xi.push_back(idx[3] * bb + floormod(ij, bb));
    }
    return BufferStore::make(y, x.load(xi), idx);
  });
}

Stmt compute_gather_elements(const graph::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<Buffer>& outputs) {
  const Buffer& data = inputs.at(0);
  const Buffer& indices = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, data, DTypeClass::kAny);
  if (!indices->dtype.is_int())
    fail_user("{}: indices must be int32 or int64, got {}", node_label(node), indices->dtype.str());
  int axis = int(node.attrs.get_int("axis", 0));
  int64_t len = const_shape(data)[size_t(axis)];
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr k = cast(DataType::i64(), indices.load(idx));
    k = select(k < i64(0), k + i64(len), k);
    Index di = idx;
    di[size_t(axis)] = max(min(k, i64(len - 1)), i64(0));
    return BufferStore::make(y, data.load(di), idx);
  });
}

Stmt compute_eye_like(const graph::Node& node, const std::vector<Buffer>& /*inputs*/,
                      const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  Expr k = i64(node.attrs.get_int("k", 0));
  Expr one = make_const(y->dtype, 1.0), zero = make_const(y->dtype, 0.0);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    return BufferStore::make(y, select(idx[1] - idx[0] == k, one, zero), idx);
  });
}

// y[.., t, .., b, ..] = x[.., L - 1 - t, .., b, ..] for t < L = clamp(sequence_lens[b], 0, T),
// else x itself.
Stmt compute_reverse_sequence(const graph::Node& node, const std::vector<Buffer>& inputs,
                              const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& lens = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  size_t batch = size_t(node.attrs.get_int("batch_axis", 1));
  size_t time = size_t(node.attrs.get_int("time_axis", 0));
  int64_t steps = const_shape(x)[time];
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Expr len = cast(DataType::i64(), lens.load({idx[batch]}));
    len = max(min(len, i64(steps)), i64(0));
    Index xi = idx;
    xi[time] = select(idx[time] < len, len - i64(1) - idx[time], idx[time]);
    return BufferStore::make(y, x.load(xi), idx);
  });
}

}  // namespace ingot::lower
