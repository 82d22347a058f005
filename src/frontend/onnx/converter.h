// The per-node conversion interface: a NodeConverter gives one ONNX node's converter typed access
// to its inputs and attributes and emits graph nodes; converters are listed in a table keyed by
// ONNX op type with the opset range each handles (converter_table.cpp).
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graph/graph.h"
#include "support/error.h"

namespace ingot::frontend::detail {

// State shared by all node conversions of one model.
struct ImportState {
  graph::Graph* graph = nullptr;
  int opset = 0;
  std::string model_dir;                                  // resolves external data
  std::unordered_map<std::string, graph::Value*> values;  // ONNX value name -> graph value
  std::unordered_set<std::string> used_names;   // names read by some node or listed as graph output
  std::unordered_set<std::string> taken_names;  // every value name in the graph (for fresh names)
  // Control-flow bodies: the model, the state of the enclosing graph, and the outer values this
  // body captured (each stands for one body input, `captured_local`), in order of first use.
  const onnx::ModelProto* model = nullptr;
  ImportState* parent = nullptr;
  std::vector<graph::Value*> captured_outer, captured_local;

  // `base` if it is free, else `base_1`, `base_2`, ...; the result is reserved.
  std::string fresh_name(const std::string& base);
  // The value named `name` here or, in a body, in an enclosing graph: an outer constant becomes a
  // constant of this graph, any other outer value a captured input. nullptr when undefined.
  graph::Value* lookup(const std::string& name);
};

// A control-flow body converted to a graph: its declared inputs first, then one input per
// captured outer value (ImportState::captured_*); see attach_captures.
struct ImportedBody {
  std::shared_ptr<graph::Graph> graph;
  std::vector<graph::Value*> outer, local;  // captured outer values and their body inputs
};
// Converts body `body` of the node being converted in `outer` (`what` names it in messages).
ImportedBody import_body(ImportState& outer, const onnx::GraphProto& body, const std::string& what);
// Gives each body one input per value any of them captures (the same order for all) and returns
// those outer values, which the control-flow node lists after its own inputs.
std::vector<graph::Value*> attach_captures(std::vector<ImportedBody*> bodies);
// Converts a body that takes no inputs (an If branch) into `state`'s own graph; returns the values
// of its outputs.
std::vector<graph::Value*> convert_body_inline(ImportState& state, const onnx::GraphProto& body,
                                               const std::string& what);

class NodeConverter {
 public:
  NodeConverter(ImportState& state, const onnx::NodeProto& proto, std::string name);

  const std::string& name() const { return name_; }
  const std::string& op_type() const { return proto_.op_type(); }
  int opset() const { return state_.opset; }
  const std::string& model_dir() const { return state_.model_dir; }

  // Inputs. `what` is the ONNX input name used in messages ("axes").
  int num_inputs() const { return proto_.input_size(); }
  bool has_input(int i) const;
  graph::Value* input(int i, const char* what) const;  // required: UserError when absent
  graph::Value* optional_input(int i) const;           // nullptr when absent
  // The constant data of input i, nullptr when absent; UserError when present but not constant.
  graph::TensorPtr constant_input(int i, const char* what) const;
  // An input whose canonical place is an attribute (ops::ConstInput): its constant data when
  // known at import (nullptr when absent). When other nodes compute it, returns nullptr and sets
  // *deferred to the value, which the converter passes as a node input for type inference to
  // resolve by shape-value propagation. A graph input (a run-time value) is a UserError.
  graph::TensorPtr static_input(int i, const char* what, graph::Value** deferred) const;
  // As static_input, but a graph input is deferred too: the op reads its values at run time
  // (value symbols, ops/value_symbols.h).
  graph::TensorPtr value_input(int i, const char* what, graph::Value** deferred) const;
  // The dtype of a value when known at import time (graph inputs and constants).
  static std::optional<graph::DType> known_dtype(const graph::Value* v);

  // Attributes. Each read marks the attribute consumed; after conversion any attribute nobody
  // consumed is reported as unsupported. A present attribute of the wrong type is a UserError.
  bool has_attr(const std::string& name) const;
  std::optional<int64_t> attr_int(const std::string& name);
  std::optional<double> attr_float(const std::string& name);
  std::optional<std::string> attr_string(const std::string& name);
  std::optional<std::vector<int64_t>> attr_ints(const std::string& name);
  std::optional<std::vector<double>> attr_floats(const std::string& name);
  std::optional<std::vector<std::string>> attr_strings(const std::string& name);
  const onnx::TensorProto* attr_tensor(const std::string& name);
  const onnx::GraphProto* attr_graph(const std::string& name);
  ImportState& state() { return state_; }
  void ignore_attr(const std::string& name) { consumed_.insert(name); }
  // Copies attribute `name` (int/ints/float/floats/string) into `attrs` when present.
  void copy_attr(const std::string& name, graph::Attrs& attrs);
  void check_all_attrs_consumed() const;

  // Outputs.
  int num_outputs() const { return proto_.output_size(); }
  bool output_used(int i) const;
  // UserError when output i exists and is read by a node or is a graph output.
  void require_unused_output(int i, const char* what) const;

  // Emits `op` named like the ONNX node, whose outputs are the first `num_outputs` ONNX outputs.
  graph::Node* emit(ops::OpKind op, std::vector<graph::Value*> inputs, graph::Attrs attrs = {},
                    int num_outputs = 1);
  // Emits a helper node "<name>/<suffix>" with one fresh output (for multi-node rewrites).
  graph::Value* emit_helper(ops::OpKind op, const std::string& suffix,
                            std::vector<graph::Value*> inputs, graph::Attrs attrs = {});
  // Emits a helper node "<name>/<suffix>" whose one output is ONNX output i, named like it.
  graph::Node* emit_output(int i, ops::OpKind op, const std::string& suffix,
                           std::vector<graph::Value*> inputs, graph::Attrs attrs = {});
  // A constant value named "<name>/<suffix>".
  graph::Value* make_constant(const std::string& suffix, graph::TensorPtr data);
  // A constant value that becomes ONNX output i, named like it.
  graph::Value* make_output_constant(int i, graph::TensorPtr data);
  // Makes ONNX output i refer to an existing value.
  void bind_output(int i, graph::Value* v);

  // "node 'n' (Op): " + message.
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> f, Args&&... args) const {
    throw UserError(fmt::format("node '{}' ({}): {}", name_, op_type(),
                                fmt::format(f, std::forward<Args>(args)...)));
  }

 private:
  const onnx::AttributeProto* find_attr(const std::string& name, int expected_type);
  graph::Node* add_node(ops::OpKind op, std::string name, std::vector<graph::Value*> inputs,
                        std::vector<std::string> outputs, graph::Attrs attrs);

  ImportState& state_;
  const onnx::NodeProto& proto_;
  std::string name_;
  std::set<std::string> consumed_;
};

using ConvertFn = void (*)(NodeConverter&);

// One table row: `fn` converts `op_type` for default-domain opsets min_opset..max_opset.
struct ConverterEntry {
  std::string_view op_type;
  int min_opset;
  int max_opset;
  ConvertFn fn;
};

// Each op family's rows (defined in convert_<family>.cpp).
std::span<const ConverterEntry> elementwise_converters();
std::span<const ConverterEntry> compare_logic_converters();
std::span<const ConverterEntry> elementwise_extra_converters();
std::span<const ConverterEntry> activation_converters();
std::span<const ConverterEntry> constant_converters();
std::span<const ConverterEntry> conv_converters();
std::span<const ConverterEntry> matmul_converters();
std::span<const ConverterEntry> norm_converters();
std::span<const ConverterEntry> pool_converters();
std::span<const ConverterEntry> reduce_converters();
std::span<const ConverterEntry> shape_converters();
std::span<const ConverterEntry> split_pad_converters();
std::span<const ConverterEntry> slice_tile_converters();          // convert_slice_tile.cpp
std::span<const ConverterEntry> attention_converters();           // convert_attention.cpp
std::span<const ConverterEntry> resize_converters();              // convert_resize.cpp
std::span<const ConverterEntry> scatter_gather_converters();      // convert_scatter_gather.cpp
std::span<const ConverterEntry> topk_onehot_cumsum_converters();  // convert_topk_onehot_cumsum.cpp
std::span<const ConverterEntry> quantize_converters();            // convert_quantize.cpp
std::span<const ConverterEntry> recurrent_converters();           // convert_recurrent.cpp
std::span<const ConverterEntry> einsum_converters();              // convert_einsum.cpp
std::span<const ConverterEntry> sampling_converters();            // convert_sampling.cpp
std::span<const ConverterEntry> swish_converters();               // convert_swish.cpp
std::span<const ConverterEntry> sequence_state_converters();      // convert_sequence_state.cpp
std::span<const ConverterEntry> signal_converters();              // convert_signal.cpp
std::span<const ConverterEntry> control_flow_converters();        // convert_control_flow.cpp
std::span<const ConverterEntry> data_dependent_converters();      // convert_data_dependent.cpp
// Rows of the com.microsoft domain (ONNX Runtime's contrib ops), by that domain's opset.
std::span<const ConverterEntry> microsoft_converters();  // convert_matmul_nbits.cpp

// The row handling `op_type` at `opset`, or nullptr. `known_range` receives the opset range over
// which any row handles the op (nullopt when the op is unknown), for messages.
const ConverterEntry* find_converter(std::string_view op_type, int opset,
                                     std::optional<std::pair<int, int>>* known_range);

// Small helpers shared by converters.
graph::TensorPtr make_i64_tensor(std::vector<int64_t> values, std::vector<int64_t> shape);
graph::TensorPtr make_scalar(graph::DType dtype, double value);
std::vector<int64_t> tensor_to_i64s(const graph::Tensor& t);
// A scalar input `slot` (named `what`) whose canonical place is attribute `attr`: sets the
// attribute (int, or float when `is_float`) when the input is a constant, else passes the
// computing value as node input `slot` (padding `inputs` with nullptr). Absent: nothing.
// `runtime`: a graph input is read at run time (value symbols) and stays an input.
void static_scalar_input(NodeConverter& c, int slot, const char* what, const char* attr,
                         bool is_float, graph::Attrs& attrs, std::vector<graph::Value*>& inputs,
                         bool runtime = false);

}  // namespace ingot::frontend::detail
