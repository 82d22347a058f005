// Compute rule of Einsum: one loop nest over the output labels (parallel outer) with, when
// labels are summed, a serial nest over them accumulating the operands' product (float16 in
// float32). Repeated labels index several dims with one variable (diagonals); an operand dim of
// extent 1 under a longer label reads index 0 (ellipsis broadcasting).
#include <algorithm>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "ops/einsum_equation.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_einsum(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  std::vector<int> ranks;
  for (const Buffer& b : inputs) {
    check_dtype(node, b, DTypeClass::kNumeric);
    if (b->dtype != inputs[0]->dtype)
      fail_user("{}: operand dtypes differ ({} vs {})", node_label(node), inputs[0]->dtype.str(),
                b->dtype.str());
    ranks.push_back(b.ndim());
  }
  std::string error;
  auto spec = ops::parse_einsum(node.attrs.get_string("equation", ""), ranks, &error);
  INGOT_ICHECK(spec, "{}: {}", node_label(node), error);
  std::vector<int64_t> extent(size_t(spec->num_labels), 1);
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    shapes.push_back(const_shape(inputs[i]));
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      int64_t& e = extent[size_t(spec->inputs[i][d])];
      e = std::max(e, shapes[i][d]);
    }
  }
  std::vector<int> summed;
  for (int l = 0; l < spec->num_labels; ++l)
    if (std::find(spec->output.begin(), spec->output.end(), l) == spec->output.end())
      summed.push_back(l);
  std::vector<int64_t> ys = const_shape(y), sum_shape;
  for (int l : summed) sum_shape.push_back(extent[size_t(l)]);
  DataType dt = y->dtype, acc_dt = accum_dtype(dt);

  std::vector<Expr> var(size_t(spec->num_labels), i64(0));
  auto product = [&]() {
    Expr p;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Index idx;
      for (size_t d = 0; d < shapes[i].size(); ++d) {
        int l = spec->inputs[i][d];
        idx.push_back(shapes[i][d] == 1 ? i64(0) : var[size_t(l)]);
      }
      Expr v = widen(inputs[i].load(idx));
      p = p.defined() ? p * v : v;
    }
    return p;
  };
  auto bind = [&](const std::vector<int>& labels, const Index& idx) {
    for (size_t k = 0; k < labels.size(); ++k) var[size_t(labels[k])] = idx[k];
  };

  if (summed.empty())
    return loop_nest(ys, "i", [&](const Index& o) {
      bind(spec->output, o);
      return BufferStore::make(y, cast(dt, product()), o);
    });
  return loop_nest(ys, "o", [&](const Index& o) {
    bind(spec->output, o);
    Accumulator acc("acc", acc_dt);
    Stmt sum = serial_nest(sum_shape, "r", [&](const Index& r) {
      bind(summed, r);
      return acc.set(acc.get() + product());
    });
    return acc.scope(SeqStmt::make(
        {acc.set(make_const(acc_dt, 0)), sum, BufferStore::make(y, cast(dt, acc.get()), o)}));
  });
}

}  // namespace ingot::lower
