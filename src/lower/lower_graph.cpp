// lower_graph: one PrimFunc per node or fused group (graph::fuse_ops; a group lowers at its last
// node), in graph order; Reshape-like nodes of intermediates are views (no kernel), and a Concat
// whose inputs are contiguous slices of its workspace output is built in place (no kernel): its
// inputs' producers write into the slices. Each value becomes a kernel parameter placed in an
// input, an output, the constant blob or the planned workspace; graph outputs that no kernel
// writes (inputs, constants, repeated values) get a copy kernel.
#include "lower/lower_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "lower/block_names.h"
#include "lower/compute/blocked_conv.h"
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/matmul_operand.h"
#include "lower/fold_constant_loads.h"
#include "lower/fuse_group.h"
#include "lower/graph_values.h"
#include "lower/kv_cache_states.h"
#include "lower/lower_control_flow.h"
#include "lower/lower_data_dependent.h"
#include "lower/memory_plan.h"
#include "lower/pad_views.h"
#include "lower/product_views.h"
#include "lower/symbolic_memory_plan.h"
#include "lower/value_symbol_nests.h"
#include "lower/value_symbols.h"
#include "ops/concat_slices.h"
#include "ops/op.h"
#include "ops/value_symbols.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/block_nest.h"

namespace ingot::lower {

using graph::Value;
using tir::ArgRef;
using tir::Buffer;

namespace {

// Builds the module; kept as a class so the placement tables are shared by the steps.
class Lowering : public LoweringHost {
 public:
  Lowering(const graph::Graph& g, const LowerOptions& options) : g_(g), options_(options) {
    for (const auto& v : g.values()) next_id_ = std::max(next_id_, v->id + 1);
  }

  tir::IRModule run() {
    symbols_ = SymbolTable(g_, options_.dim_bounds);
    check_symbolic_shapes(g_, symbols_);
    mod_.symbols = symbols_.symbols();
    mod_.model_name = g_.name;
    if (options_.kv_cache_capacity > 0)
      states_ = find_kv_cache_states(g_, symbols_, options_.kv_cache_capacity);
    for (const Value* v : g_.inputs) {
      if (state_index(v) >= 0) continue;
      place_[v] = {ArgRef::kInput, int64_t(mod_.inputs.size())};
      mod_.inputs.push_back(describe(v, symbols_));
    }
    for (const Value* v : g_.outputs) {
      output_index_.push_back(state_index(v) >= 0 ? -1 : int64_t(mod_.outputs.size()));
      if (state_index(v) < 0) mod_.outputs.push_back(describe(v, symbols_));
    }
    place_states();
    claim_outputs();
    plan_concat_slices();
    lower_nodes(g_);
    add_output_copies();
    plan_workspace();
    build_value_fn(g_, symbols_, mod_);
    for (int& k : mod_.value_fn_inputs) {  // graph input index -> artifact input index
      auto it = place_.find(g_.inputs[size_t(k)]);
      if (it == place_.end())
        fail_user("--kv-cache: the cache input '{}' decides a shape by its values",
                  g_.inputs[size_t(k)]->name);
      k = int(it->second.value);
    }
    return std::move(mod_);
  }

 private:
  // The graph's nodes in order, a fused group (graph::fuse_ops) at its last member.
  void lower_nodes(const graph::Graph& g) override {
    std::map<int, std::vector<const graph::Node*>> groups;
    std::map<int, const graph::Node*> anchors;  // the last member in graph order
    for (const auto& n : g.nodes())
      if (n->fusion_group >= 0) anchors[n->fusion_group] = n.get();
    for (const auto& n : g.nodes()) {
      if (n->fusion_group < 0) {
        lower_node(*n);
        continue;
      }
      auto& members = groups[n->fusion_group];
      members.push_back(n.get());
      if (anchors.at(n->fusion_group) == n.get()) lower_group(members);
    }
  }

  // Each produced graph output is written in place by its node (first occurrence only).
  void claim_outputs() {
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const Value* v = g_.outputs[i];
      if (v->producer == nullptr || v->is_constant() || place_.count(v) || output_index_[i] < 0)
        continue;
      place_[v] = {ArgRef::kOutput, output_index_[i]};
    }
  }

  // ---- States (--kv-cache, lower/kv_cache_states.h) ----
  // The state replacing `v` (a cache input or output), or -1.
  int state_index(const Value* v) const {
    for (size_t k = 0; k < states_.size(); ++k)
      if (states_[k].past == v || states_[k].present == v) return int(k);
    return -1;
  }

  // Each state is a value at its capacity, the artifact's output outputs.size() + k; its past
  // and present are strided views of it.
  void place_states() {
    for (size_t k = 0; k < states_.size(); ++k) {
      const KvCacheState& s = states_[k];
      Value& state = new_value(s.past->name + "_state", capacity_type(s));
      place_[&state] = {ArgRef::kOutput, int64_t(mod_.outputs.size() + k)};
      state_values_.push_back(&state);
      for (const Value* v : {s.past, s.present}) {
        views_[v] = &state;
        strided_[v] = state_strides(s);
      }
      mod_.states.push_back(describe_state(s, describe(&state, symbols_), symbols_));
    }
  }

  // The Concat that extends a cache writes only the new entries, at the state's length.
  bool lower_state_append(const graph::Node& node) {
    for (size_t k = 0; k < states_.size(); ++k) {
      const KvCacheState& s = states_[k];
      if (s.concat != &node) continue;
      Buffer added = param_buffer(s.added, false);
      Buffer state = param_buffer(state_values_[k], false);
      tir::PrimFunc f;
      f.params = {added, state};
      f.body = append_to_state(added, state, s.axis,
                               symbols_.expr(graph::SymExpr::symbol(s.length_symbol)));
      f.name = unique_name(fmt::format("{}_append", sanitize(node.name)));
      f.source_ops = {"Concat (appended to the state)"};
      add_kernel(std::move(f), {s.added, state_values_[k]});
      return true;
    }
    return false;
  }

  // A Reshape-like node that only inserts or removes dims of extent 1 keeps a state's strided
  // view a strided view (Llama's Unsqueeze before repeating the key/value heads).
  bool lower_as_strided_view(const graph::Node& node) {
    const Value* in = node.inputs.at(0);
    const Value* out = node.outputs.at(0);
    if (place_.count(out) || in->type.dtype != out->type.dtype) return false;
    std::optional<std::vector<tir::Expr>> strides =
        unit_reshape_strides(in->type, out->type, strided_.at(in));
    if (!strides) return false;
    views_[out] = storage(in);
    strided_[out] = std::move(*strides);
    return true;
  }

  // A row-major copy (Reshape, Squeeze, ...) reads its input flat, so a state's strided view is
  // first copied into a dense temporary.
  bool lower_dense_copy_of_state(const graph::Node& node) {
    if (states_.empty() || !is_row_major_copy(node.op)) return false;
    graph::Node dense_node = node;
    bool any = false;
    for (Value*& v : dense_node.inputs) {
      if (v == nullptr || !strided_.count(v)) continue;
      Value& dense = new_value(v->name + "_dense", v->type);
      Buffer from = param_buffer(v, false), to = param_buffer(&dense, false);
      tir::PrimFunc f;
      f.params = {from, to};
      f.body = loop_nest(Extents{to->shape}, "i", [&](const Index& idx) {
        return tir::BufferStore::make(to, from.load(idx), idx);
      });
      f.name = unique_name(fmt::format("{}_dense", sanitize(v->name)));
      f.source_ops = {"(dense copy of a state)"};
      add_kernel(std::move(f), {v, &dense});
      v = &dense;
      any = true;
    }
    if (any) lower_node(dense_node);
    return any;
  }

  // The bytes of a value at the symbols' upper bounds (its bytes when static).
  int64_t value_bytes(const Value* v) const {
    return symbols_.max_elements(v->type) * graph::dtype_bytes(v->type.dtype);
  }

  // A value its producer may write straight into a slice of a Concat's output `whole`: produced
  // by a kernel (not a graph input, output or constant, not a view of another value's storage).
  bool writable_in_slice(const Value* v, const Value* whole) const {
    return v != nullptr && v->producer != nullptr && !v->is_constant() && !place_.count(v) &&
           !is_row_major_copy(v->producer->op) && v->type.dtype == whole->type.dtype;
  }

  // Decides, before any kernel exists, which Concat inputs live in their slice of the output:
  // every unfused Concat with contiguous slices (ops/concat_slices.h) and a workspace output.
  // A value gets one slice (a value concatenated twice, or by two Concats, is copied into the
  // others); a Concat with no input written in place keeps its kernel.
  void plan_concat_slices() {
    for (const auto& n : g_.nodes()) {
      if (n->op != ops::OpKind::Concat || n->fusion_group >= 0) continue;
      const Value* whole = n->outputs.at(0);
      if (place_.count(whole)) continue;      // a graph output
      if (has_symbolic_values(*n)) continue;  // slices at symbolic offsets: a kernel
      std::optional<std::vector<int64_t>> offsets = ops::concat_slice_offsets(*n);
      if (!offsets) continue;
      ConcatInPlace c{*offsets, {}};
      bool any = false;
      for (size_t i = 0; i < n->inputs.size(); ++i) {
        const Value* v = n->inputs[i];
        if (value_bytes(v) == 0) continue;
        if (writable_in_slice(v, whole) && !slices_.count(v)) {
          slices_[v] = {whole, c.offsets[i]};
          any = true;
        } else {
          c.copies.push_back(i);
        }
      }
      if (any) in_place_concats_[n.get()] = std::move(c);
    }
  }

  // A Concat built in place: only the inputs not written into their slices by their producers
  // are copied there (one flat copy each).
  bool lower_concat_in_place(const graph::Node& node) {
    auto it = in_place_concats_.find(&node);
    if (it == in_place_concats_.end()) return false;
    const Value* whole = node.outputs.at(0);
    for (size_t i : it->second.copies) {
      const Value* v = node.inputs[i];
      const Value* slice = &new_value(fmt::format("{}_slice{}", whole->name, i), v->type);
      slices_[slice] = {whole, it->second.offsets[i]};
      tir::PrimFunc f = flat_copy(v, sanitize(slice->name));
      f.name = unique_name(fmt::format("{}_Concat_copy{}", sanitize(node.name), i));
      f.source_ops = {"Concat (copy into its slice)"};
      if (v->is_constant()) constant_ref(v);
      add_kernel(std::move(f), {v, slice});
    }
    return true;
  }

  // A kernel copying `src` (flat) to a parameter named `dst_name` of its shape.
  tir::PrimFunc flat_copy(const Value* src, const std::string& dst_name) override {
    tir::PrimFunc f;
    Buffer from = param_buffer(src, true);
    Buffer to = Buffer::make(dst_name, from->dtype, from->shape);
    f.params = {from, to};
    f.body = loop_nest(to->shape, "i", [&](const Index& idx) {
      return tir::BufferStore::make(to, from.load(idx), idx);
    });
    return f;
  }

  ArgRef constant_ref(const Value* v) {
    auto it = place_.find(v);
    if (it != place_.end()) return it->second;
    int64_t off = align_up(int64_t(mod_.constants.size()));
    int64_t n = v->constant->nbytes();
    mod_.constants.resize(size_t(off + n), 0);
    if (n > 0) std::memcpy(mod_.constants.data() + off, v->constant->data(), size_t(n));
    ArgRef ref{ArgRef::kConstant, off};
    place_[v] = ref;
    return ref;
  }

  // The kernel parameter of a value (flattened to 1-D for row-major copies).
  Buffer param_buffer(const Value* v, bool flat) override {
    std::vector<tir::Expr> shape = symbols_.shape(v->type);
    if (auto it = strided_.find(v); it != strided_.end()) {  // a view of a state's layout
      INGOT_ICHECK(!flat, "a flat read of the state view '{}'", v->name);
      return Buffer::make(sanitize(v->name), to_tir_dtype(v->type.dtype), shape,
                          tir::StorageScope::kGlobal, it->second);
    }
    if (flat && shape.size() != 1) shape = {symbols_.expr(elements(v))};
    return Buffer::make(sanitize(v->name), to_tir_dtype(v->type.dtype), shape);
  }

  std::string unique_name(const std::string& base) override {
    std::string name = base;
    for (int k = 1; !names_.insert(name).second; ++k) name = fmt::format("{}_{}", base, k);
    return name;
  }

  struct PendingCall {
    int kernel;                        // or a label (control-flow steps)
    std::vector<const Value*> values;  // per param; a branch: its flag
    tir::KernelCall::Op op = tir::KernelCall::kCall;
  };

  void add_kernel(tir::PrimFunc f, std::vector<const Value*> values) override {
    // Block-form nests of the compute rules: the schedule stage names their rule
    // (schedule::assign_schedule_rules).
    if (f.schedule_rule.empty() && tir::has_blocks(f.body)) f.body = finish_blocks(f.body);
    for (const Buffer& b : f.params) {
      if (is_symbolic(b)) continue;  // depends on the binding
      int64_t bytes = b->dtype.bytes();
      for (int64_t d : const_shape(b)) bytes *= d;
      f.bytes_moved += double(bytes);
    }
    // The symbols the kernel's shapes and loops read become its int64 shape parameters.
    for (const tir::SymbolDesc& sym : mod_.symbols) {
      bool used = tir::uses_var(f.body, sym.var);
      for (const Buffer& b : f.params)
        for (const tir::Expr& e : b->shape) used = used || tir::uses_var(e, sym.var);
      if (used) f.shape_vars.push_back(sym.var);
    }
    for (size_t p = 0; p < values.size(); ++p)
      if (values[p] != nullptr && values[p]->is_constant()) f.constant_params.push_back(int(p));
    int index = int(mod_.kernels.size());
    for (const Value*& v : values) {
      if (v != nullptr) v = storage(v);
      if (place_.count(v)) continue;
      auto& life = lifetimes_[v];
      if (life.first < 0) life.first = index;
      life.last = index;
    }
    mod_.kernels.push_back(std::move(f));
    calls_.push_back({index, std::move(values)});
  }

  Value& new_value(const std::string& name, graph::TensorType type) override {
    Value& v = synthetic_.emplace_back();
    v.id = next_id_++;
    v.name = name;
    v.type = std::move(type);
    return v;
  }

  const Value& symbol_slot(const std::string& symbol) override {
    INGOT_ICHECK(symbols_.has(symbol), "no symbol '{}' for a data-dependent size", symbol);
    const size_t index = size_t(&symbols_.symbol(symbol) - symbols_.symbols().data());
    Value& v = new_value(symbol + "_slot", {graph::DType::kI64, {graph::Dim::fixed(1)}});
    place_[&v] = {ArgRef::kSymbol, int64_t(index)};
    return v;
  }

  // A ConvNCHWc or QConvNCHWc (graph pass layout_nchwc): its block-form compute
  // (lower/compute/blocked_conv.h) over the node's own weights, which its rule lays out, so they
  // are never folded into loads.
  bool lower_conv_nchwc(const graph::Node& node) {
    if (node.op != ops::OpKind::ConvNCHWc && node.op != ops::OpKind::QConvNCHWc) return false;
    tir::PrimFunc f = conv_nchwc_compute(node);
    std::vector<const Value*> args;
    for (const Value* v : node.inputs)
      if (v != nullptr) args.push_back(v);
    args.push_back(node.outputs.at(0));
    // (A scratch parameter, the 8-bit conv's accumulator, is bound with the workspace after
    // scheduling: tir/transforms/apply_param_layouts.h.)
    INGOT_ICHECK(args.size() + f.scratch_params.size() == f.params.size(),
                 "{}: {} values for {} parameters", node.describe(), args.size(), f.params.size());
    for (const Value* v : args)
      if (v->is_constant()) constant_ref(v);
    f.source_ops = source_ops(node);
    f.name = unique_name(kernel_name(node.name, node.op));
    f.flops = node_flops(node);
    add_kernel(std::move(f), std::move(args));
    return true;
  }

  // The kernel's constant parameters whose loads fold_constant_loads may turn into literals.
  static std::map<const tir::BufferNode*, graph::TensorPtr> small_constants(
      const std::map<const Value*, Buffer>& bufs) {
    std::map<const tir::BufferNode*, graph::TensorPtr> out;
    for (const auto& [v, b] : bufs)
      if (v != nullptr && v->is_constant() && b->dtype == to_tir_dtype(v->type.dtype) &&
          v->constant->num_elements() <= kMaxFoldedConstantElements)
        out[b.get()] = v->constant;
    return out;
  }

  // The storage a value lives in: its own, or that of the value it is a view of.
  const Value* storage(const Value* v) const override {
    auto it = views_.find(v);
    return it == views_.end() ? v : it->second;
  }

  // A Reshape-like node (row-major order unchanged) whose output is not a graph output needs no
  // kernel: its output is a view of the input's storage. Nothing writes either afterwards.
  bool lower_as_view(const graph::Node& node) {
    if (!is_row_major_copy(node.op) || reinterprets_input(node.op)) return false;
    const Value* in = node.inputs.at(0);
    const Value* out = node.outputs.at(0);
    if (in != nullptr && out != nullptr && strided_.count(in)) return lower_as_strided_view(node);
    if (in == nullptr || out == nullptr || place_.count(out) || in->is_constant() ||
        in->type.dtype != out->type.dtype || elements(in) != elements(out))
      return false;
    views_[out] = storage(in);
    return true;
  }

  // A Split whose outputs are contiguous byte ranges of its input (every dim before the axis 1)
  // and whose input's storage is a workspace tensor needs no kernel: each output is a slice of
  // that storage. An output that is a graph output or already lives in a Concat's slice is
  // copied there from its range.
  bool lower_split_as_slices(const graph::Node& node) {
    if (node.op != ops::OpKind::Split || has_symbolic_values(node)) return false;
    std::optional<std::vector<int64_t>> offsets = ops::split_slice_offsets(node);
    if (!offsets) return false;
    const Value* whole = storage(node.inputs.at(0));
    if (whole->producer == nullptr || whole->is_constant() || place_.count(whole) ||
        !lifetimes_.count(whole))
      return false;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const Value* out = node.outputs[i];
      if (value_bytes(out) == 0) continue;
      if (!place_.count(out) && !slices_.count(out)) {
        slices_[out] = {whole, (*offsets)[i]};
        continue;
      }
      const Value* part = &new_value(fmt::format("{}_part{}", whole->name, i), out->type);
      slices_[part] = {whole, (*offsets)[i]};
      tir::PrimFunc f = flat_copy(part, sanitize(out->name));
      f.name = unique_name(fmt::format("{}_Split_copy{}", sanitize(node.name), i));
      f.source_ops = {"Split (copy of a slice)"};
      add_kernel(std::move(f), {part, out});
    }
    return true;
  }

  // The node's nest: its compute rule's, or the block form of a product (GPU and c targets,
  // the dense products of the CPU rules).
  tir::Stmt compute_nest(const graph::Node& node, const std::vector<Buffer>& ins,
                         const std::vector<Buffer>& outs) const {
    if (product_block(node))
      if (tir::Stmt s = compute_product_block(node, ins, outs); s.defined()) return s;
    // (On its row views, which lower_node declares; a product described elsewhere, as a fused
    // group's member, keeps the row form.)
    if (symbolic_rows_product(node) && ins[0].ndim() == 2 && outs[0].ndim() == 2)
      return compute_symbolic_rows_block(node, ins, outs);
    if (int8_product(node) && ins[0].ndim() == 2 && outs[0].ndim() == 2)
      return compute_int_matmul_block(node, ins, outs);
    if (tir::Stmt s = value_symbol_nest(node, ins, outs, symbols_); s.defined()) return s;
    return compute_rule(node.op)(node, ins, outs);
  }

  // A product described as one block: dense on a CPU target with schedules, any with
  // product_blocks (a float16 one only with wide accumulators).
  bool product_block(const graph::Node& node) const {
    if (dense_product(node)) return true;
    if (!options_.product_blocks || has_symbolic_values(node)) return false;  // (static shapes)
    const Value* y = node.outputs.empty() ? nullptr : node.outputs[0];
    return options_.wide_accumulators ||
           (y != nullptr &&
            accum_dtype(to_tir_dtype(y->type.dtype)) == to_tir_dtype(y->type.dtype));
  }

  // A dense product on a CPU target with schedules (compute/matmul_operand.h).
  bool dense_product(const graph::Node& node) const {
    return options_.cpu_schedules && is_dense_product(node);
  }
  // An 8-bit product rule int8_matmul takes, on a CPU target with schedules: IntMatMul with a
  // constant B of whole groups of 4 along K (its rows may be symbolic).
  bool int8_product(const graph::Node& node) const {
    if (!options_.cpu_schedules || node.op != ops::OpKind::IntMatMul) return false;
    const Value* b = node.inputs[1];
    return b->is_constant() && b->type.is_static() && b->type.shape[0].value % 4 == 0;
  }
  // A product over symbolic rows on such a target (compute/matmul_operand.h).
  bool symbolic_rows_product(const graph::Node& node) const {
    if (!options_.cpu_schedules || !is_symbolic_rows_product(node)) return false;
    for (const Value* v : {node.inputs[0], node.outputs[0]})  // row-major, to be viewed as rows
      if (strided_.count(v)) return false;
    return node.inputs.size() <= 3 || !strided_.count(node.inputs[3]);
  }

  // A row-major [d0, .., dn-1, K] buffer as [d0 * .. * dn-1, K].
  static Buffer rows_view(const Buffer& b) {
    tir::Expr rows = tir::i64(1);
    for (size_t d = 0; d + 1 < b->shape.size(); ++d) rows = rows * b->shape[d];
    return Buffer::make(b->name, b->dtype, {tir::arith::simplify(rows), b->shape.back()});
  }

  // A node whose outputs are all shape values known as expressions of the symbols (Shape, and
  // the Gather/Concat/Unsqueeze of shape computations) needs none of its inputs: one kernel
  // stores the expressions, evaluated on the bound symbols.
  bool lower_symbolic_value(const graph::Node& node) {
    if (symbols_.empty() || node.outputs.empty()) return false;
    for (const Value* v : node.outputs)
      if (v == nullptr || v->symbolic_value.empty() || !v->type.is_static() ||
          int64_t(v->symbolic_value.size()) != v->type.num_elements())
        return false;
    tir::PrimFunc f;
    std::vector<const Value*> values;
    std::vector<tir::Stmt> stores;
    for (const Value* v : node.outputs) {
      Buffer b = param_buffer(v, true);
      f.params.push_back(b);
      values.push_back(v);
      for (size_t i = 0; i < v->symbolic_value.size(); ++i)
        stores.push_back(tir::BufferStore::make(
            b, tir::cast(b->dtype, symbols_.expr(v->symbolic_value[i])), {tir::i64(int64_t(i))}));
    }
    f.body = tir::SeqStmt::make(stores);
    f.name = unique_name(kernel_name(node.name, node.op));
    f.source_ops = source_ops(node);
    f.source_ops.push_back("(shape value of the symbols)");
    add_kernel(std::move(f), std::move(values));
    return true;
  }

  void lower_node(const graph::Node& node) {
    if (lower_state_append(node)) return;
    if (lower_control_flow_node(node, *this)) return;
    if (lower_data_dependent_node(node, *this)) return;
    if (lower_as_view(node)) return;
    if (lower_dense_copy_of_state(node)) return;
    if (lower_symbolic_value(node)) return;
    if (lower_concat_in_place(node)) return;
    if (lower_split_as_slices(node)) return;
    if (lower_conv_nchwc(node)) return;
    bool flat = is_row_major_copy(node.op);
    std::map<const Value*, Buffer> bufs;
    std::vector<const Value*> values;
    tir::PrimFunc f;
    std::map<const Value*, Buffer> declared;  // parameters declared before their first use
    auto buffer_of = [&](const Value* v) {
      auto it = bufs.find(v);
      if (it != bufs.end()) return it->second;
      auto d = declared.find(v);
      Buffer b = d != declared.end() ? d->second : param_buffer(v, flat);
      bufs[v] = b;
      f.params.push_back(b);
      values.push_back(v);
      if (v->is_constant()) constant_ref(v);
      return b;
    };
    std::vector<Buffer> ins, outs;
    if (reinterprets_input(node.op)) {  // the input's bytes, read as the output's dtype
      Buffer b = param_buffer(node.inputs.at(0), flat);
      declared[node.inputs[0]] =
          Buffer::make(b->name, to_tir_dtype(node.outputs.at(0)->type.dtype), b->shape);
    }
    if (dense_product(node))
      for (const auto& [v, shape] : product_view_shapes(node))
        declared[v] = Buffer::make(sanitize(v->name), to_tir_dtype(v->type.dtype), shape);
    for (const auto& [v, shape] : pad_view_shapes(node))
      declared[v] = Buffer::make(sanitize(v->name), to_tir_dtype(v->type.dtype), shape);
    if (symbolic_rows_product(node))  // A, Y and the summand as [rows, last dim]
      for (const Value* v :
           {node.inputs[0], node.outputs[0], node.inputs.size() > 3 ? node.inputs[3] : nullptr})
        if (v != nullptr) declared[v] = rows_view(param_buffer(v, false));
    if ((node.op == ops::OpKind::WQMatMul || int8_product(node)) &&
        !strided_.count(node.inputs[0]) &&
        !strided_.count(node.outputs[0]))  // A and Y as [rows, last dim] (any target)
      for (const Value* v : {node.inputs[0], node.outputs[0]})
        declared[v] = rows_view(param_buffer(v, false));
    for (const Value* v : node.inputs) ins.push_back(v ? buffer_of(v) : Buffer());
    if (dense_product(node) && node.inputs[0] == node.inputs[1]) {
      // x x^T: B its own parameter over the same storage (read only, both), so the schedule
      // lays out and packs A and B each its own way.
      ins[1] = Buffer::make(ins[1]->name + "_b", ins[1]->dtype, ins[1]->shape);
      f.params.push_back(ins[1]);
      values.push_back(node.inputs[1]);
    }
    for (const Value* v : node.outputs) outs.push_back(v ? buffer_of(v) : Buffer());
    f.body = fold_constant_loads(compute_nest(node, ins, outs), small_constants(bufs));
    f.name = unique_name(kernel_name(node.name, node.op));
    f.source_ops = source_ops(node);
    f.flops = node_flops(node);
    add_kernel(std::move(f), std::move(values));
  }

  // One kernel for a fused group (graph::fuse_ops), members in graph order: each member's
  // compute-rule nest, with every intermediate inlined into its readers where its form allows
  // (lower/fuse_group.h) and otherwise kept as a nest writing a workspace tensor.
  void lower_group(const std::vector<const graph::Node*>& members) {
    const graph::Node& anchor = *members.back();
    std::map<const Value*, Buffer> bufs;
    auto buffer_of = [&](const Value* v) {
      if (v == nullptr) return Buffer();
      auto it = bufs.find(v);
      if (it == bufs.end()) it = bufs.emplace(v, param_buffer(v, false)).first;
      return it->second;
    };
    std::vector<tir::Stmt> nests;
    for (const graph::Node* m : members) {
      std::vector<Buffer> ins, outs;
      for (const Value* v : m->inputs) ins.push_back(buffer_of(v));
      for (const Value* v : m->outputs) outs.push_back(buffer_of(v));
      nests.push_back(compute_nest(*m, ins, outs));
    }
    std::set<const Value*> stored;  // tensors the kernel writes
    for (const Value* v : anchor.outputs) stored.insert(v);
    // Intermediates the schedule inlines (compute_inline, reverse_compute_inline).
    std::vector<Buffer> inlined;
    std::vector<const Value*> reverse;  // reverse-inline candidates
    for (size_t i = 0; i + 1 < members.size(); ++i) {
      const Value* t = members[i]->outputs.at(0);
      const Buffer& tb = bufs.at(t);
      if (is_inlinable_block_nest(nests[i], tb)) {  // kept; the injective rule inlines it
        inlined.push_back(tb);
        continue;
      }
      // A reduction's result read by the anchor alone, elementwise at its own index (directly
      // or through a chain of elementwise intermediates, each with one reader, that the
      // injective rule inlines into it first): it reverse-inlines the anchor into the result's
      // one store.
      if (stores_once(nests[i], tb) && reaches_anchor_at_own_index(nests, members, bufs, i)) {
        reverse.push_back(t);
        continue;
      }
      stored.insert(t);
    }
    // The anchor takes one reverse inline, and only when it then reads no other tensor the
    // kernel writes (reverse_compute_inline's condition); otherwise those are stored too.
    if (reverse.size() == 1 && stored.size() == anchor.outputs.size()) {
      inlined.push_back(bufs.at(reverse[0]));
    } else {
      stored.insert(reverse.begin(), reverse.end());
    }
    tir::PrimFunc f;
    std::vector<const Value*> values;
    std::set<const Value*> seen;
    auto add_param = [&](const Value* v) {
      if (v == nullptr || !seen.insert(v).second) return;
      f.params.push_back(bufs.at(v));
      values.push_back(v);
      if (v->is_constant()) constant_ref(v);
    };
    std::set<const Value*> produced;
    for (const graph::Node* m : members)
      for (const Value* v : m->outputs) produced.insert(v);
    for (const graph::Node* m : members) {
      for (const Value* v : m->inputs)
        if (v != nullptr && (!produced.count(v) || stored.count(v))) add_param(v);
      for (const Value* v : m->outputs)
        if (stored.count(v)) add_param(v);
    }
    std::vector<tir::Stmt> body;
    for (tir::Stmt& s : nests)
      if (s.defined()) body.push_back(std::move(s));
    f.body = fold_constant_loads(tir::SeqStmt::make(body), small_constants(bufs));
    if (!inlined.empty()) {  // the kernel's own scratch until its schedule inlines them
      std::vector<Buffer> local;
      for (const Buffer& b : inlined) {
        local.push_back(Buffer::make(b->name, b->dtype, b->shape, tir::StorageScope::kLocal));
        f.body = tir::replace_buffer(f.body, b, local.back());
      }
      f.body = tir::make_root(f.body, local);
    }
    f.name = unique_name(kernel_name(anchor.name, anchor.op));
    for (const graph::Node* m : members) {
      for (std::string& op : source_ops(*m)) f.source_ops.push_back(std::move(op));
      f.flops += node_flops(*m);
    }
    add_kernel(std::move(f), std::move(values));
  }

  // Whether member i's output is read by one later member only, at its own index, and that
  // reader is the anchor or (an elementwise intermediate that compute_inline moves into its
  // reader) itself such a member.
  static bool reaches_anchor_at_own_index(const std::vector<tir::Stmt>& nests,
                                          const std::vector<const graph::Node*>& members,
                                          const std::map<const Value*, Buffer>& bufs, size_t i) {
    const Buffer& tb = bufs.at(members[i]->outputs.at(0));
    std::vector<size_t> readers;
    for (size_t j = i + 1; j < nests.size(); ++j)
      if (reads_buffer(nests[j], tb)) readers.push_back(j);
    if (readers.size() != 1) return false;
    const size_t j = readers[0];
    const Buffer& out = bufs.at(members[j]->outputs.at(0));
    if (!reads_at_own_index(nests[j], tb, out)) return false;
    return j + 1 == nests.size() || reaches_anchor_at_own_index(nests, members, bufs, j);
  }

  // ---- Control flow (lower/lower_control_flow.h): the host side. A branch, jump or label; a
  // branch's flag stays live until the next kernel has run.
  void add_step(tir::KernelCall::Op op, int label, const Value* flag) override {
    std::vector<const Value*> values;
    if (flag != nullptr) {
      if (flag->is_constant()) constant_ref(flag);
      const Value* s = storage(flag);
      values.push_back(s);
      if (!place_.count(s)) {
        Life& life = lifetimes_[s];
        if (life.first < 0) life.first = int(mod_.kernels.size());
        life.last = std::max(life.last, int(mod_.kernels.size()));
      }
    }
    calls_.push_back({label, std::move(values), op});
  }

  void place_constant(const Value* v) override { constant_ref(v); }
  void view(const Value* v, const Value* of) override { views_[v] = storage(of); }
  bool has_own_place(const Value* v) const override { return place_.count(v) || slices_.count(v); }
  int new_label() override { return next_label_++; }
  int num_kernels() const override { return int(mod_.kernels.size()); }
  void loop_region(int first, int last) override { loops_.push_back({first, last}); }
  const SymbolTable& symbols() const override { return symbols_; }
  std::string name_of(const std::string& s) const override { return sanitize(s); }

  // Values that cross the back edge of a loop running kernels [first, last]: one live before the
  // loop and read in it stays live to its end; one written in it and read after it is live
  // from its start (the iterations rewrite it). Once every use is known; nested loops until
  // nothing changes.
  void keep_alive_over_loops() {
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [first, last] : loops_) {
        for (auto& [v, life] : lifetimes_) {
          Life before = life;
          if (life.first < first && life.last >= first && life.last < last) life.last = last;
          if (life.first > first && life.first <= last && life.last > last) life.first = first;
          changed = changed || life.first != before.first || life.last != before.last;
        }
      }
    }
  }

  // Graph outputs that are inputs, constants or repeats of an earlier output are copied.
  void add_output_copies() {
    for (size_t i = 0; i < g_.outputs.size(); ++i) {
      const Value* v = g_.outputs[i];
      if (output_index_[i] < 0) continue;  // a state's present
      auto it = place_.find(v);
      if (it != place_.end() && it->second.kind == ArgRef::kOutput &&
          it->second.value == output_index_[i])
        continue;
      if (v->is_constant()) constant_ref(v);
      INGOT_ICHECK(place_.count(v), "graph output '{}' has no producer", v->name);
      tir::PrimFunc f = flat_copy(v, sanitize(v->name) + "_out");
      f.name = unique_name(fmt::format("copy_{}", sanitize(v->name)));
      f.source_ops = {"(output copy)"};
      output_copies_[int(mod_.kernels.size())] = output_index_[i];
      add_kernel(std::move(f), {v, nullptr});
    }
  }

  void plan_workspace() {
    // The workspace values and the Concat outputs whose slices they live in (such an output may
    // have no use of its own: its readers may all read it through a view, or it may be only a
    // slice of an outer Concat).
    keep_alive_over_loops();
    std::map<const Value*, Life> lives_of = lifetimes_;
    lives_of.erase(nullptr);
    for (const auto& [v, life] : lifetimes_) {
      for (auto s = slices_.find(v); v != nullptr && s != slices_.end();
           s = slices_.find(s->second.whole)) {
        INGOT_ICHECK(!place_.count(s->second.whole), "concat output '{}' is not in the workspace",
                     s->second.whole->name);
        lives_of.emplace(s->second.whole, life);  // its own uses, if any, are already there
      }
    }
    std::vector<const Value*> order;
    for (const auto& [v, life] : lives_of) order.push_back(v);
    // Deterministic plans: value ids, not pointer order.
    std::sort(order.begin(), order.end(),
              [](const Value* a, const Value* b) { return a->id < b->id; });
    std::map<const Value*, int> index;
    for (size_t i = 0; i < order.size(); ++i) index[order[i]] = int(i);
    std::vector<BufferLifetime> lives;
    for (const Value* v : order) {
      const Life& life = lives_of.at(v);
      BufferLifetime b{value_bytes(v), life.first, life.last};
      auto s = slices_.find(v);
      if (s != slices_.end()) {
        b.parent = index.at(s->second.whole);
        b.offset_in_parent = s->second.offset;
      }
      lives.push_back(b);
    }
    if (symbols_.empty()) {
      MemoryPlan plan = plan_memory(lives);
      for (size_t i = 0; i < order.size(); ++i)
        place_[order[i]] = {ArgRef::kWorkspace, plan.offsets[i]};
      mod_.workspace_bytes = uint64_t(plan.total_bytes);
      mod_.workspace_bytes_unshared = uint64_t(plan.unshared_bytes);
    } else {
      plan_symbolic_workspace(order, lives);
    }
    for (const PendingCall& c : calls_) {
      tir::KernelCall call{c.kernel, {}, c.op};
      for (const Value* v : c.values) {
        if (v == nullptr) {  // the destination of an output copy
          call.args.push_back({ArgRef::kOutput, output_copies_.at(c.kernel)});
        } else {
          call.args.push_back(place_.at(v));
        }
      }
      mod_.entry.push_back(std::move(call));
    }
  }

  // A module with symbols gets a plan that is a function of them (lower/symbolic_memory_plan.h):
  // every workspace argument is at a run-time offset of its slot.
  void plan_symbolic_workspace(const std::vector<const Value*>& order,
                               const std::vector<BufferLifetime>& lives) {
    std::vector<SymbolicBuffer> buffers;
    for (size_t i = 0; i < order.size(); ++i) {
      const Value* v = order[i];
      const BufferLifetime& l = lives[i];
      buffers.push_back({elements(v) * graph::SymExpr(graph::dtype_bytes(v->type.dtype)),
                         value_bytes(v), l.first_use, l.last_use, l.parent, l.offset_in_parent});
    }
    SymbolicPlan plan = plan_memory_symbolic(buffers);
    std::map<std::pair<int, std::string>, int64_t> index;  // (slot, offset) -> table entry
    for (size_t i = 0; i < order.size(); ++i) {
      const int slot = std::max(plan.slots[i], 0);  // a buffer of no bytes: any slot
      auto [it, fresh] = index.emplace(std::pair{slot, plan.offsets[i].str()},
                                       int64_t(mod_.workspace_offsets.size()));
      if (fresh) mod_.workspace_offsets.push_back({symbols_.expr(plan.offsets[i]), slot});
      place_[order[i]] = {ArgRef::kWorkspaceAt, it->second};
    }
    mod_.workspace_size = symbols_.expr(plan.total_bytes);
    mod_.workspace_bytes = uint64_t(symbols_.max_value(plan.total_bytes));
    mod_.workspace_bytes_unshared = uint64_t(plan.unshared_hint_bytes);
  }

  struct Life {
    int first = -1, last = -1;
  };
  struct Slice {
    const Value* whole;  // the Concat output it lives in
    int64_t offset;      // bytes
  };
  struct ConcatInPlace {
    std::vector<int64_t> offsets;  // per input, bytes
    std::vector<size_t> copies;    // inputs copied into their slice by a kernel
  };
  const graph::Graph& g_;
  LowerOptions options_;
  SymbolTable symbols_;
  std::deque<Value> synthetic_;
  int next_id_ = 0;
  tir::IRModule mod_;
  std::map<const Value*, ArgRef> place_;
  std::map<const Value*, Life> lifetimes_;      // workspace values
  std::map<const Value*, const Value*> views_;  // a Reshape's output -> the storage it views
  std::map<const Value*, Slice> slices_;        // a Concat input -> its slice of the output
  std::map<const graph::Node*, ConcatInPlace> in_place_concats_;
  std::map<int, int64_t> output_copies_;  // copy kernel -> output index
  std::vector<int64_t> output_index_;     // per graph output: the artifact's index (-1: a state)
  std::vector<KvCacheState> states_;
  std::vector<const Value*> state_values_;  // per state: the value at its capacity
  // Views of a state's capacity layout (its past and present, and unit-dim reshapes of them):
  // their element strides.
  std::map<const Value*, std::vector<tir::Expr>> strided_;
  std::vector<PendingCall> calls_;
  std::set<std::string> names_;
  int next_label_ = 0;                      // control-flow labels
  std::vector<std::pair<int, int>> loops_;  // each loop's first and last kernel
};

}  // namespace

tir::IRModule lower_graph(const graph::Graph& g, const LowerOptions& options) {
  return Lowering(g, options).run();
}

}  // namespace ingot::lower
