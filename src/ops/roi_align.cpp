// RoiAlign: for each region of interest (rois [R, 4] as x1, y1, x2, y2, batch_indices [R]) an
// output_height x output_width map per channel of X [N, C, H, W], each bin the average (or max)
// of bilinearly sampled points. Attributes explicit after inference; opset 10 (no
// coordinate_transformation_mode) is imported as "output_half_pixel".
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_roi_align(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& rois = input_type(n, 1, "rois");
  const TensorType& idx = input_type(n, 2, "batch_indices");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'X' {} must be a float tensor", n.describe(), x.str());
  require_same_dtype(n, x, rois, "X", "rois");
  if (idx.dtype != DType::kI64 && idx.dtype != DType::kI32)
    fail_user("{}: input 'batch_indices' {} must be int64", n.describe(), idx.str());
  if (x.rank() != 4) fail_user("{}: input 'X' {} must have rank 4", n.describe(), x.str());
  if (rois.rank() != 2 || (rois.shape[1].is_static() && rois.shape[1].value != 4))
    fail_user("{}: input 'rois' {} must have shape [num_rois, 4]", n.describe(), rois.str());
  if (idx.rank() != 1)
    fail_user("{}: input 'batch_indices' {} must have rank 1", n.describe(), idx.str());
  Dim num = merge_dims(n, rois.shape[0], idx.shape[0], "num_rois");
  std::string mode = n.attrs.get_string("mode", "avg");
  std::string ctm = n.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  if (mode != "avg" && mode != "max")
    fail_user("{}: attribute 'mode' = '{}' is not supported (valid: avg, max)", n.describe(), mode);
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    fail_user(
        "{}: attribute 'coordinate_transformation_mode' = '{}' is not supported (valid: "
        "half_pixel, output_half_pixel)",
        n.describe(), ctm);
  int64_t oh = n.attrs.get_int("output_height", 1), ow = n.attrs.get_int("output_width", 1);
  int64_t sr = n.attrs.get_int("sampling_ratio", 0);
  if (oh < 1 || ow < 1)
    fail_user("{}: attributes 'output_height' and 'output_width' must be positive", n.describe());
  if (sr < 0)
    fail_user("{}: attribute 'sampling_ratio' must be non-negative, got {}", n.describe(), sr);
  n.attrs.set("mode", mode);
  n.attrs.set("coordinate_transformation_mode", ctm);
  n.attrs.set("output_height", oh);
  n.attrs.set("output_width", ow);
  n.attrs.set("sampling_ratio", sr);
  n.attrs.set("spatial_scale", n.attrs.get_float("spatial_scale", 1.0));
  return {TensorType{x.dtype, {num, x.shape[1], Dim::fixed(oh), Dim::fixed(ow)}}};
}

// Four taps of a bilinear sample per grid point; the grid is sampling_ratio^2 points per bin
// (taken as 4 when adaptive).
double roi_align_flops(const Node& n) {
  int64_t sr = n.attrs.get_int("sampling_ratio", 0);
  double points = sr > 0 ? double(sr * sr) : 4;
  return 8 * points * approx_elements(n.outputs.at(0)->type);
}

}  // namespace

void add_roi_align_ops(std::vector<OpInfo>& t) {
  OpInfo ra{OpKind::RoiAlign,
            "RoiAlign",
            PatternKind::kOpaque,
            {{"mode", AttrType::kString},
             {"coordinate_transformation_mode", AttrType::kString},
             {"output_height", AttrType::kInt},
             {"output_width", AttrType::kInt},
             {"sampling_ratio", AttrType::kInt},
             {"spatial_scale", AttrType::kFloat}}};
  ra.min_inputs = ra.max_inputs = 3;
  ra.infer_fn = infer_roi_align;
  ra.flops_fn = roi_align_flops;
  t.push_back(ra);
}

}  // namespace ingot::ops::detail
