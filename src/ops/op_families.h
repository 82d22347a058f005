// Internal: each op family file appends its OpInfo entries; op.cpp assembles the table.
#pragma once

#include <vector>

#include "ops/op.h"

namespace ingot::ops::detail {

// FLOPs of ops that only move or generate data.
double no_flops(const graph::Node&);
// An injective, FLOP-free op with the given attribute schema and inference.
OpInfo make_data_movement_op(OpKind k, const char* name, std::vector<AttrSpec> attrs,
                             std::vector<graph::TensorType> (*infer)(graph::Node&));

void add_elementwise_ops(std::vector<OpInfo>& t);
void add_compare_logic_ops(std::vector<OpInfo>& t);
void add_elementwise_extra_ops(std::vector<OpInfo>& t);
void add_activation_ops(std::vector<OpInfo>& t);
void add_conv_ops(std::vector<OpInfo>& t);
void add_layout_ops(std::vector<OpInfo>& t);          // layout.cpp
void add_winograd_ops(std::vector<OpInfo>& t);        // winograd.cpp
void add_conv_transpose_ops(std::vector<OpInfo>& t);  // conv_transpose.cpp
void add_recurrent_ops(std::vector<OpInfo>& t);       // recurrent.cpp
void add_matmul_ops(std::vector<OpInfo>& t);
void add_normalization_ops(std::vector<OpInfo>& t);
void add_pooling_ops(std::vector<OpInfo>& t);
void add_pooling_nchwc_ops(std::vector<OpInfo>& t);
void add_reduction_ops(std::vector<OpInfo>& t);
void add_reduction_extra_ops(std::vector<OpInfo>& t);
void add_shape_ops(std::vector<OpInfo>& t);
void add_data_movement_ops(std::vector<OpInfo>& t);
void add_generator_ops(std::vector<OpInfo>& t);       // generators.cpp
void add_slice_tile_ops(std::vector<OpInfo>& t);      // slice_tile.cpp
void add_rearrange_ops(std::vector<OpInfo>& t);       // rearrange.cpp
void add_attention_ops(std::vector<OpInfo>& t);       // attention.cpp
void add_resize_ops(std::vector<OpInfo>& t);          // resize.cpp
void add_scatter_gather_ops(std::vector<OpInfo>& t);  // scatter_gather.cpp
void add_topk_ops(std::vector<OpInfo>& t);            // topk.cpp
void add_one_hot_ops(std::vector<OpInfo>& t);         // one_hot.cpp
void add_data_dependent_ops(std::vector<OpInfo>& t);  // data_dependent.cpp
void add_cumsum_ops(std::vector<OpInfo>& t);          // cumsum.cpp
void add_quantize_ops(std::vector<OpInfo>& t);        // quantize.cpp
void add_qlinear_ops(std::vector<OpInfo>& t);         // qlinear.cpp
void add_control_flow_ops(std::vector<OpInfo>& t);    // control_flow.cpp
void add_weight_quant_ops(std::vector<OpInfo>& t);    // weight_quant.cpp
void add_einsum_ops(std::vector<OpInfo>& t);          // einsum.cpp
void add_det_ops(std::vector<OpInfo>& t);             // det.cpp
void add_grid_sample_ops(std::vector<OpInfo>& t);     // grid_sample.cpp: GridSample, AffineGrid
void add_col2im_ops(std::vector<OpInfo>& t);          // col2im.cpp
void add_roi_align_ops(std::vector<OpInfo>& t);       // roi_align.cpp
void add_deform_conv_ops(std::vector<OpInfo>& t);     // deform_conv.cpp
void add_swish_ops(std::vector<OpInfo>& t);           // swish.cpp
void add_causal_conv_ops(std::vector<OpInfo>& t);     // causal_conv.cpp
void add_linear_attention_ops(std::vector<OpInfo>& t);
void add_tensor_scatter_ops(std::vector<OpInfo>& t);  // tensor_scatter.cpp
void add_signal_ops(std::vector<OpInfo>& t);          // signal.cpp

}  // namespace ingot::ops::detail
