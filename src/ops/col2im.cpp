// Col2Im: rearranges column blocks [N, C * prod(block_shape), L] back into an image
// [N, C, image_shape...], summing overlapping values (the inverse of im2col). image_shape and
// block_shape decide the output shape, so they must be compile-time constants (attributes);
// dilations, strides and pads (begins then ends) are made explicit.
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

// The caller's image_shape or block_shape: the image dims (and with a run-time block_shape the
// channels) are value dims, checked by the value function (lower/value_symbols.cpp).
std::vector<TensorType> infer_col2im_values(Node& n, const TensorType& x) {
  auto length = [&](size_t slot, const char* what, const char* attr) -> int64_t {
    if (n.inputs[slot] == nullptr) return int64_t(n.attrs.get_ints(attr).size());
    const TensorType& t = n.inputs[slot]->type;
    if ((t.dtype != DType::kI64 && t.dtype != DType::kI32) || t.rank() != 1 || !t.is_static())
      fail_user("{}: input '{}' must be a 1-D int64 tensor of static length, got {}", n.describe(),
                what, t.str());
    return t.shape[0].value;
  };
  const int64_t r = length(1, "image_shape", "image_shape");
  if (r == 0 || length(2, "block_shape", "block_shape") != r)
    fail_user("{}: inputs 'image_shape' and 'block_shape' must have the same, non-zero length",
              n.describe());
  n.attrs.set("dilations", ints_of_rank(n, "dilations", size_t(r), 1, 1));
  n.attrs.set("strides", ints_of_rank(n, "strides", size_t(r), 1, 1));
  std::vector<int64_t> pads = n.attrs.get_ints("pads", std::vector<int64_t>(size_t(2 * r), 0));
  if (int64_t(pads.size()) != 2 * r)
    fail_user("{}: attribute 'pads' must have {} values, got {}", n.describe(), 2 * r, pads.size());
  for (int64_t p : pads)
    if (p < 0) fail_user("{}: attribute 'pads' values must be non-negative", n.describe());
  n.attrs.set("pads", pads);
  if (x.rank() != 3)
    fail_user("{}: input 'input' {} must have rank 3 [N, C * prod(block_shape), L]", n.describe(),
              x.str());
  TensorType out{x.dtype, {x.shape[0], value_dim(n, 0, 1)}};
  for (int64_t d = 0; d < r; ++d)
    out.shape.push_back(n.inputs[1] == nullptr
                            ? Dim::fixed(n.attrs.get_ints("image_shape")[size_t(d)])
                            : value_dim(n, 0, int(d + 2)));
  if (n.inputs[2] == nullptr) {  // a constant block_shape decides the channels
    int64_t block_size = 1;
    for (int64_t b : n.attrs.get_ints("block_shape")) block_size *= b;
    std::optional<SymExpr> channels = x.shape[1].sym().divide_exact(SymExpr(block_size));
    if (channels) out.shape[1] = Dim::of(*channels);
  }
  return {out};
}

std::vector<TensorType> infer_col2im(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (x.dtype == DType::kBool)
    fail_user("{}: input 'input' must be numeric, got bool", n.describe());
  if (col2im_reads_values(n)) return infer_col2im_values(n, x);
  if (!n.attrs.has("image_shape")) fail_user("{}: input 'image_shape' is missing", n.describe());
  if (!n.attrs.has("block_shape")) fail_user("{}: input 'block_shape' is missing", n.describe());
  std::vector<int64_t> image = n.attrs.get_ints("image_shape");
  std::vector<int64_t> block = n.attrs.get_ints("block_shape");
  size_t r = image.size();
  if (r == 0 || block.size() != r)
    fail_user(
        "{}: inputs 'image_shape' ({} values) and 'block_shape' ({} values) must have the "
        "same, non-zero length",
        n.describe(), image.size(), block.size());
  for (size_t d = 0; d < r; ++d)
    if (image[d] < 1 || block[d] < 1)
      fail_user("{}: 'image_shape' and 'block_shape' values must be positive", n.describe());
  std::vector<int64_t> dil = ints_of_rank(n, "dilations", r, 1, 1);
  std::vector<int64_t> strides = ints_of_rank(n, "strides", r, 1, 1);
  std::vector<int64_t> pads = n.attrs.get_ints("pads", std::vector<int64_t>(2 * r, 0));
  if (pads.size() != 2 * r)
    fail_user("{}: attribute 'pads' must have {} values, got {}", n.describe(), 2 * r, pads.size());
  for (int64_t p : pads)
    if (p < 0) fail_user("{}: attribute 'pads' values must be non-negative", n.describe());
  int64_t blocks = 1, block_size = 1;
  for (size_t d = 0; d < r; ++d) {
    int64_t span = dil[d] * (block[d] - 1) + 1;
    int64_t cols = (image[d] + pads[d] + pads[r + d] - span) / strides[d] + 1;
    if (image[d] + pads[d] + pads[r + d] < span)
      fail_user("{}: block dim {} (extent {} with dilation) is larger than the padded image dim {}",
                n.describe(), d, span, image[d] + pads[d] + pads[r + d]);
    blocks *= cols;
    block_size *= block[d];
  }
  if (x.rank() != 3)
    fail_user("{}: input 'input' {} must have rank 3 [N, C * prod(block_shape), L]", n.describe(),
              x.str());
  const Dim &c = x.shape[1], &l = x.shape[2];
  if (c.is_static() && c.value % block_size != 0)
    fail_user("{}: dim 1 of input {} is not a multiple of prod(block_shape) = {}", n.describe(),
              x.str(), block_size);
  if (l.is_static() && l.value != blocks)
    fail_user("{}: dim 2 of input {} must be the number of blocks, {}", n.describe(), x.str(),
              blocks);
  n.attrs.set("dilations", dil);
  n.attrs.set("strides", strides);
  n.attrs.set("pads", pads);
  TensorType out{x.dtype, {x.shape[0]}};
  std::optional<SymExpr> channels = c.sym().divide_exact(SymExpr(block_size));
  out.shape.push_back(channels ? Dim::of(*channels) : derived_dim(n, 0, 1));
  for (int64_t s : image) out.shape.push_back(Dim::fixed(s));
  return {out};
}

// One add per input element.
double col2im_flops(const Node& n) {
  return approx_elements(n.inputs.at(0)->type);
}

}  // namespace

void add_col2im_ops(std::vector<OpInfo>& t) {
  OpInfo ci{OpKind::Col2Im,
            "Col2Im",
            PatternKind::kOpaque,
            {{"image_shape", AttrType::kInts},
             {"block_shape", AttrType::kInts},
             {"dilations", AttrType::kInts},
             {"pads", AttrType::kInts},
             {"strides", AttrType::kInts}}};
  ci.min_inputs = 1;
  ci.max_inputs = 3;  // input, then image_shape and block_shape until type inference resolves them
  ci.const_inputs = {{1, "image_shape", "image_shape", false, /*runtime=*/true},
                     {2, "block_shape", "block_shape", false, /*runtime=*/true}};
  ci.infer_fn = infer_col2im;
  ci.flops_fn = col2im_flops;
  t.push_back(ci);
}

}  // namespace ingot::ops::detail
