// Compute rules: for one graph node and the loop-IR buffers of its inputs and outputs, build the
// loop nest that computes the outputs. One rule per op family (one file each); compute_rule()
// picks the rule of an op kind. Rules read attributes from the node (canonical forms, see
// docs/graph-forms.md) and shapes from the buffers, so they compose into fused kernels later.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "tir/stmt.h"

namespace ingot::lower {

// inputs[i] is an undefined Buffer for an omitted optional input.
using ComputeRule = tir::Stmt (*)(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                  const std::vector<tir::Buffer>& outputs);

// elementwise_unary.cpp: Relu, Sigmoid, Tanh, Erf, Exp, Log, Sqrt, Reciprocal, Neg, Abs, Clip,
// Gelu, Cast.
tir::Stmt compute_unary(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
// elementwise_binary.cpp: Add, Sub, Mul, Div, Pow with numpy broadcasting.
tir::Stmt compute_binary(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// compare_logic.cpp: Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not, And, Or, Xor, Where,
// IsNaN, IsInf (bool results).
tir::Stmt compute_compare_logic(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                const std::vector<tir::Buffer>& outputs);
// elementwise_extra.cpp: Max, Min, Sum, Mean (variadic), Mod, BitShift, Sign, Ceil, Floor, Round,
// Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh.
tir::Stmt compute_elementwise_extra(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                    const std::vector<tir::Buffer>& outputs);
// activation.cpp: LeakyRelu, PRelu, Elu, Selu, Celu, HardSigmoid, HardSwish, Softplus, Softsign,
// Mish, ThresholdedRelu.
tir::Stmt compute_activation(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
// conv.cpp: N-d Conv (groups, pads, strides, dilations, bias).
tir::Stmt compute_conv(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
// conv_transpose.cpp: N-d ConvTranspose (canonical form: begin pads and output_shape).
tir::Stmt compute_conv_transpose(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                 const std::vector<tir::Buffer>& outputs);
// recurrent.cpp: RNN, GRU and LSTM (a serial loop over the time steps per direction).
tir::Stmt compute_recurrent(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
// matmul_block.cpp: MatMul and Gemm as one reduction block "matmul", and 2-D Conv as one block
// "conv" (conv_block), the GPU targets' forms; an undefined Stmt for other ops and for
// float16 / bfloat16 or mixed-dtype products, grouped or other-rank convs.
// MatMul / Gemm over symbolic rows and a constant 2-D B (is_symbolic_rows_product,
// matmul_operand.h) on their views A [M, K], Y [M, N]: block "matmul" over i (extent M), j, k,
// its init the bias row; the rest of a fused epilogue a pass after it.
tir::Stmt compute_symbolic_rows_block(const graph::Node& node,
                                      const std::vector<tir::Buffer>& inputs,
                                      const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_product_block(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                const std::vector<tir::Buffer>& outputs);
// conv_block.cpp: the "conv" block of compute_product_block.
tir::Stmt conv_block(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                     const std::vector<tir::Buffer>& outputs);
// matmul.cpp: Gemm and MatMul.
tir::Stmt compute_gemm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_matmul(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// normalization.cpp: BatchNormalization (inference), LayerNormalization, InstanceNormalization,
// RMSNormalization, GroupNormalization, MeanVarianceNormalization, LpNormalization.
tir::Stmt compute_batch_norm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_layer_norm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_instance_norm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_rms_norm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                           const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_group_norm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_mvn(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                      const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_lp_norm(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                          const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_lrn(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                      const std::vector<tir::Buffer>& outputs);
// attention.cpp: Attention (3-D / 4-D, grouped heads, masks, past cache, qk_matmul_output).
tir::Stmt compute_attention(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
// rotary.cpp: RotaryEmbedding.
tir::Stmt compute_rotary(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// layout.cpp: LayoutToBlocked, LayoutFromBlocked (channel-blocked layout conversions).
tir::Stmt compute_layout(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// winograd.cpp: WinogradInputTransform, WinogradOutputTransform (graph pass winograd_conv).
tir::Stmt compute_winograd_input(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                 const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_winograd_output(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                  const std::vector<tir::Buffer>& outputs);
// softmax.cpp
tir::Stmt compute_softmax(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                          const std::vector<tir::Buffer>& outputs);
// pool.cpp: MaxPool (and its Indices), AveragePool, LpPool; GlobalAveragePool, GlobalMaxPool;
// MaxUnpool.
tir::Stmt compute_pool(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_global_pool(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_max_unpool(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
// pool_nchwc.cpp: MaxPoolNCHWc, AveragePoolNCHWc (2-D pooling of channel-blocked tensors).
tir::Stmt compute_pool_nchwc(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
// reduce.cpp: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp.
tir::Stmt compute_reduce(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// A reduction whose axes the caller gives at run time (ops::has_value_axes): `kept` holds each
// input dim's kept extent (1 when reduced), value symbols the runtime computed.
// A Pad with run-time pads or axes (ops::pad_reads_values): `begins` per dim, the pads before it
// (value symbols; negative: a crop); the constant is the run-time constant_value when given.
tir::Stmt compute_pad_values(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs,
                             const std::vector<tir::Expr>& begins);

// A Slice with run-time starts/ends/axes/steps (ops::slice_reads_values): per dim the first
// index read and the step (value symbols, or 0 and 1).
tir::Stmt compute_slice_values(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                               const std::vector<tir::Buffer>& outputs,
                               const std::vector<tir::Expr>& starts,
                               const std::vector<tir::Expr>& steps);
tir::Stmt compute_reduce_value_axes(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                    const std::vector<tir::Buffer>& outputs,
                                    const std::vector<tir::Expr>& kept);
// arg_softmax.cpp: ArgMax, ArgMin; LogSoftmax, Hardmax (one axis).
tir::Stmt compute_arg_reduce(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_softmax_variant(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                  const std::vector<tir::Buffer>& outputs);
// reshape.cpp: Identity, Flatten, Reshape, Squeeze, Unsqueeze (row-major copies), and Shape.
tir::Stmt compute_copy(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_shape(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
// reshape.cpp: BitCast (a copy; see reinterprets_input).
tir::Stmt compute_bitcast(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                          const std::vector<tir::Buffer>& outputs);
// transpose.cpp
tir::Stmt compute_transpose(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
// concat_split.cpp
tir::Stmt compute_concat(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_split(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
// pad.cpp: constant, reflect and edge modes; CenterCropPad.
tir::Stmt compute_pad(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                      const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_center_crop_pad(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                  const std::vector<tir::Buffer>& outputs);
// gather.cpp
tir::Stmt compute_gather(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);

// slice_tile.cpp: generators (ConstantOfShape, Size, Range) and Slice, Expand, Tile.
tir::Stmt compute_constant_of_shape(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                    const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_size(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_range(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_slice(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_expand(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_tile(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);

// rearrange.cpp: Trilu, DepthToSpace and SpaceToDepth, GatherElements.
tir::Stmt compute_trilu(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_depth_space(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_gather_elements(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                  const std::vector<tir::Buffer>& outputs);
// rearrange.cpp: EyeLike, ReverseSequence.
tir::Stmt compute_eye_like(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                           const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_reverse_sequence(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                   const std::vector<tir::Buffer>& outputs);

// resize.cpp: Resize (nearest, linear, cubic; Upsample is imported as Resize).
tir::Stmt compute_resize(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// scatter_gather.cpp: GatherND, ScatterND, ScatterElements.
tir::Stmt compute_gather_nd(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_scatter_nd(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_scatter_elements(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                   const std::vector<tir::Buffer>& outputs);
// topk.cpp, one_hot.cpp, cumsum.cpp (CumSum and CumProd)
tir::Stmt compute_topk(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_one_hot(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                          const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_cumsum(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);

// weight_quant.cpp: WQMatMul and WQGather (weight-only quantized, dequantized where read).
tir::Stmt compute_wq_matmul(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_wq_gather(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
// qlinear.cpp: QConv and QMatMul (int32 accumulation, fixed-point requantization).
tir::Stmt compute_qconv(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_int_matmul(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
// IntMatMul as one block "matmul" over its row views (rule int8_matmul).
tir::Stmt compute_int_matmul_block(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                   const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_requantize(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                             const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_qmatmul(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                          const std::vector<tir::Buffer>& outputs);
// quantize.cpp: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear.
tir::Stmt compute_quantize_linear(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                  const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_dequantize_linear(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                    const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_dynamic_quantize_linear(const graph::Node& node,
                                          const std::vector<tir::Buffer>& inputs,
                                          const std::vector<tir::Buffer>& outputs);
// einsum.cpp
tir::Stmt compute_einsum(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// det.cpp
tir::Stmt compute_det(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                      const std::vector<tir::Buffer>& outputs);
// grid_sample.cpp: GridSample (N-d), AffineGrid; col2im.cpp; roi_align.cpp; deform_conv.cpp.
tir::Stmt compute_grid_sample(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_affine_grid(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_col2im(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// Col2Im with its block extents as expressions (the caller's block_shape: value symbols).
tir::Stmt compute_col2im_blocks(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                const std::vector<tir::Buffer>& outputs,
                                const std::vector<tir::Expr>& block);
tir::Stmt compute_roi_align(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                            const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_deform_conv(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs);
// signal.cpp: HannWindow, HammingWindow, BlackmanWindow; DFT and STFT (direct transforms);
// MelWeightMatrix.
tir::Stmt compute_window(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                         const std::vector<tir::Buffer>& outputs);
// STFT with its frame_step or frame_length given at run time: the value symbols of both.
tir::Stmt compute_stft_values(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs, tir::Expr step,
                              tir::Expr frame);
// DFT with its axis given at run time: `axis` is the value symbol of the non-negative axis.
tir::Stmt compute_dft_value_axis(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                 const std::vector<tir::Buffer>& outputs, tir::Expr axis);
tir::Stmt compute_dft(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                      const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_stft(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                       const std::vector<tir::Buffer>& outputs);
tir::Stmt compute_mel_weight_matrix(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                    const std::vector<tir::Buffer>& outputs);

// swish.cpp: Swish, SwiGLU.
tir::Stmt compute_swish(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                        const std::vector<tir::Buffer>& outputs);
// causal_conv.cpp: CausalConvWithState.
tir::Stmt compute_causal_conv(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                              const std::vector<tir::Buffer>& outputs);
// linear_attention.cpp: LinearAttention (the recurrent form, serial over the sequence).
tir::Stmt compute_linear_attention(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                   const std::vector<tir::Buffer>& outputs);
// tensor_scatter.cpp: TensorScatter.
tir::Stmt compute_tensor_scatter(const graph::Node& node, const std::vector<tir::Buffer>& inputs,
                                 const std::vector<tir::Buffer>& outputs);

// The rule of an op kind (every op in op_list.def has one).
ComputeRule compute_rule(ops::OpKind op);

// True for ops whose rule is a plain row-major copy (the kernel may pass flattened buffers).
bool is_row_major_copy(ops::OpKind op);
// True for ops whose kernel reads input 0's bytes as the output's dtype (BitCast): lowering
// declares that kernel parameter with the output's dtype.
bool reinterprets_input(ops::OpKind op);

}  // namespace ingot::lower
