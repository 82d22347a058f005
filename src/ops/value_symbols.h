// Value symbols: dims that the *values* of a shape-deciding graph input decide (Reshape's
// `shape` fed by the model's caller), served at run time instead of frozen by
// --specialize-inputs (docs/dynamic-shapes.md, step 7). Inference names such a dim with a fresh
// symbol; the artifact computes it from the input's values before the run (the runtime calls its
// value function after binding the input shapes), and everything downstream treats it as any
// other symbol: kernels over symbolic extents, the memory plan as a function of the symbols.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op_kind.h"

namespace ingot::ops {

// A value the artifact reads at run time to decide shapes: a graph input (not a constant or a
// computed value), or a small static tensor computed from such values, constants and shape
// values through the ops `computes_small_values` names (the value function evaluates them
// element by element: lower/value_elements.h). The expanded forms of ops compute their sizes so.
bool is_runtime_value(const graph::Value* v);

// Elementwise, comparison and index-moving ops the value function evaluates (see above), and
// the most elements such a computed value may have.
bool computes_small_values(OpKind op);
constexpr int64_t kMaxSmallValueElements = 64;

// The value symbol of dim `axis` of output `output` of `n`.
graph::Dim value_dim(const graph::Node& n, int output, int axis);

// The value symbols `n` defines, in order: its output dims that input values decide, and any
// the kernel needs besides (a Reduce's kept extent of each input dim, `kept_extent`).
std::vector<std::string> value_symbols_of(const graph::Node& n);

// A reduction whose axes the caller gives at run time, and the value symbol of the extent its
// output keeps of input dim `axis` (1 when reduced, else the dim).
bool has_value_axes(const graph::Node& n);
std::string kept_extent(const graph::Node& n, int axis);

// Whether `n` defines value symbol `symbol`, with its upper bound as an expression of the
// input shapes' symbols; nullopt when `n` does not define it.
std::optional<graph::SymExpr> value_symbol_bound(const graph::Node& n, const std::string& symbol);

// The smallest value value symbol `symbol` of `n` may take (0, or a Slice step's -2^31).
int64_t value_symbol_min(const graph::Node& n, const std::string& symbol);

// A Slice whose starts, ends, axes or steps the caller gives; the value symbols of the start
// and the step it applies to dim `axis` (0 and 1 for a dim it does not touch).
bool slice_reads_values(const graph::Node& n);
std::string slice_start(const graph::Node& n, int axis);
std::string slice_step(const graph::Node& n, int axis);

// NonZero, Compress, Unique and NonMaxSuppression: an output dim that the input *data* decides,
// counted by the kernel during the run (the value function sets it to its bound before the run, for
// the plan).
bool has_data_dependent_size(const graph::Node& n);

// A Pad whose pads or axes the caller gives (opset 11+), or a CenterCropPad whose shape the
// caller gives; the value symbol of the pads it puts before dim `axis` (negative: a crop).
bool pad_reads_values(const graph::Node& n);
std::string pad_begin(const graph::Node& n, int axis);

// A Resize (or Upsample) whose roi, scales or sizes the caller gives: the dims its `axes` name
// are value symbols, and the kernel reads the values (lower/compute/resize_params.h).
bool resize_reads_values(const graph::Node& n);

// A DFT whose axis the caller gives (opset 20): the value symbol of the axis, made non-negative.
bool dft_reads_axis(const graph::Node& n);
std::string dft_axis(const graph::Node& n);

// An STFT whose frame_step or frame_length the caller gives: the value symbols of the step and
// the frame length it reads (its frame count, and with a run-time length its bin count, are its
// output's value dims).
bool stft_reads_values(const graph::Node& n);
std::string stft_step(const graph::Node& n);
std::string stft_frame(const graph::Node& n);

// A MelWeightMatrix whose num_mel_bins or dft_length the caller gives: its output dims are value
// symbols (the kernel reads the DFT length from the input).
bool mel_reads_values(const graph::Node& n);

// A Col2Im whose image_shape or block_shape the caller gives: its image dims, and with a
// run-time block_shape its channel count, are value dims; `col2im_block` names the block extent
// of spatial dim d (the kernel's loop extent).
bool col2im_reads_values(const graph::Node& n);
std::string col2im_block(const graph::Node& n, int d);

// The input of `n` whose run-time values decide its output's dims (Reshape's shape, Squeeze's
// and Unsqueeze's axes, Expand's shape, ConstantOfShape's input), or -1.
int value_shape_slot(const graph::Node& n);

// The axis of value symbol `symbol` of `n`'s output `output`, or -1.
int value_symbol_axis(const graph::Node& n, int output, const std::string& symbol);

}  // namespace ingot::ops
