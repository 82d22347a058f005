// Lowering of If, Loop and Scan (see lower_control_flow.h).
#include "lower/lower_control_flow.h"

#include <fmt/format.h>

#include <set>

#include "lower/control_flow_kernels.h"
#include "ops/op.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

namespace {

using graph::Value;
using tir::Buffer;

class ControlFlowLowering {
 public:
  explicit ControlFlowLowering(LoweringHost& host) : h_(host) {}

  bool lower(const graph::Node& node) {
    switch (node.op) {
      case ops::OpKind::If:
        lower_if(node);
        return true;
      case ops::OpKind::Loop:
        lower_loop(node);
        return true;
      case ops::OpKind::Scan:
        lower_scan(node);
        return true;
      default:
        return false;
    }
  }

 private:
  static std::vector<const Value*> captured(const graph::Node& node) {
    const size_t c = size_t(node.attrs.get_int("num_captures", 0));
    return {node.inputs.end() - std::ptrdiff_t(c), node.inputs.end()};
  }

  // The body's inputs from `first` on stand for `values` (views of their storage).
  void bind_body(const graph::Graph& body, size_t first, const std::vector<const Value*>& values) {
    INGOT_ICHECK(first + values.size() <= body.inputs.size(), "body with {} inputs bound to {}",
                 body.inputs.size(), first + values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i]->is_constant()) h_.place_constant(values[i]);
      h_.view(body.inputs[first + i], values[i]);
    }
  }

  void copy_into(const Value* src, const Value* dst, const std::string& why) {
    if (h_.storage(src) == h_.storage(dst)) return;
    if (src->is_constant()) h_.place_constant(src);
    std::string dst_name = h_.name_of(dst->name);
    if (dst_name == h_.name_of(src->name)) dst_name += "_dst";
    tir::PrimFunc f = h_.flat_copy(src, dst_name);
    f.name = h_.unique_name(fmt::format("copy_{}", dst_name));
    f.source_ops = {why};
    h_.add_kernel(std::move(f), {src, dst});
  }

  // Copies that happen at once (loop-carried values): a source another copy overwrites is saved
  // to a temporary first.
  void parallel_copy(const std::vector<std::pair<const Value*, const Value*>>& copies,
                     const std::string& why) {
    std::set<const Value*> dsts;
    for (const auto& [src, dst] : copies) dsts.insert(h_.storage(dst));
    auto clobbered = [&](const Value* src, const Value* dst) {
      return h_.storage(src) != h_.storage(dst) && dsts.count(h_.storage(src)) != 0;
    };
    std::vector<std::pair<const Value*, const Value*>> saved;
    for (const auto& [src, dst] : copies) {
      if (!clobbered(src, dst)) continue;
      const Value* t = &h_.new_value(dst->name + "_next", dst->type);
      copy_into(src, t, why);
      saved.push_back({t, dst});
    }
    for (const auto& [src, dst] : copies)
      if (!clobbered(src, dst)) copy_into(src, dst, why);
    for (const auto& [t, dst] : saved) copy_into(t, dst, why);
  }

  void lower_if(const graph::Node& node) {
    const int else_label = h_.new_label(), end_label = h_.new_label();
    h_.add_step(tir::KernelCall::kBranchIfZero, else_label, node.inputs.at(0));
    for (size_t b = 0; b < 2; ++b) {
      const graph::Graph& body = *node.subgraphs.at(b);
      bind_body(body, 0, captured(node));
      h_.lower_nodes(body);
      std::vector<std::pair<const Value*, const Value*>> copies;
      for (size_t i = 0; i < node.outputs.size(); ++i)
        if (node.outputs[i] != nullptr) copies.push_back({body.outputs.at(i), node.outputs[i]});
      parallel_copy(copies, b == 0 ? "If (then_branch output)" : "If (else_branch output)");
      if (b == 0) {
        h_.add_step(tir::KernelCall::kJump, end_label);
        h_.add_step(tir::KernelCall::kLabel, else_label);
      }
    }
    h_.add_step(tir::KernelCall::kLabel, end_label);
  }

  // A loop under way: its counter, flags, carried-value slots, labels and first kernel.
  struct LoopFrame {
    const Value *iter = nullptr, *cond_state = nullptr, *keep = nullptr;
    std::vector<const Value*> states;
    int top = 0, end = 0, first_kernel = 0;
    TripCount trips;
    std::vector<const Value*> trip_values;  // M, when the trip count is a tensor
  };

  // The counter's kernel, the carried values' first copies, then the loop's head: its label and
  // the branch out.
  LoopFrame begin_loop(const graph::Node& node, const Value* m, tir::Expr limit, const Value* cond,
                       const std::vector<const Value*>& initial) {
    LoopFrame fr;
    const std::string op = ops::op_name(node.op);
    fr.iter = &h_.new_value(node.name + "_iter", {graph::DType::kI64, {}});
    fr.cond_state = &h_.new_value(node.name + "_cond", {graph::DType::kBool, {}});
    fr.keep = &h_.new_value(node.name + "_keep_going", {graph::DType::kBool, {}});
    fr.trips.limit = std::move(limit);
    if (m != nullptr) {
      if (m->is_constant()) h_.place_constant(m);
      fr.trips.m = h_.param_buffer(m, false);
      fr.trip_values = {m};
    }
    std::vector<const Value*> values = fr.trip_values;
    Buffer cond_buf;
    if (cond != nullptr) {
      if (cond->is_constant()) h_.place_constant(cond);
      cond_buf = h_.param_buffer(cond, false);
      values.push_back(cond);
    }
    tir::PrimFunc f =
        loop_init_kernel(fr.trips, cond_buf, h_.param_buffer(fr.iter, false),
                         h_.param_buffer(fr.cond_state, false), h_.param_buffer(fr.keep, false));
    f.name = h_.unique_name(fmt::format("{}_{}_start", h_.name_of(node.name), op));
    f.source_ops = {op + " (counter)"};
    values.insert(values.end(), {fr.iter, fr.cond_state, fr.keep});
    h_.add_kernel(std::move(f), std::move(values));
    for (size_t j = 0; j < initial.size(); ++j) {
      fr.states.push_back(&h_.new_value(fmt::format("{}_state{}", node.name, j), initial[j]->type));
      copy_into(initial[j], fr.states.back(), op + " (initial value)");
    }
    fr.top = h_.new_label();
    fr.end = h_.new_label();
    h_.add_step(tir::KernelCall::kLabel, fr.top);
    h_.add_step(tir::KernelCall::kBranchIfZero, fr.end, fr.keep);
    fr.first_kernel = h_.num_kernels();
    return fr;
  }

  // The counter's step, the jump back and the exit; then the final carried values become the
  // node's first outputs.
  void end_loop(const graph::Node& node, const LoopFrame& fr) {
    const std::string op = ops::op_name(node.op);
    tir::PrimFunc f =
        loop_step_kernel(h_.param_buffer(fr.iter, false), fr.trips,
                         h_.param_buffer(fr.cond_state, false), h_.param_buffer(fr.keep, false));
    f.name = h_.unique_name(fmt::format("{}_{}_step", h_.name_of(node.name), op));
    f.source_ops = {op + " (counter)"};
    std::vector<const Value*> values = {fr.iter};
    values.insert(values.end(), fr.trip_values.begin(), fr.trip_values.end());
    values.insert(values.end(), {fr.cond_state, fr.keep});
    h_.add_kernel(std::move(f), std::move(values));
    h_.add_step(tir::KernelCall::kJump, fr.top);
    h_.add_step(tir::KernelCall::kLabel, fr.end);
    h_.loop_region(fr.first_kernel, h_.num_kernels() - 1);
    for (size_t j = 0; j < fr.states.size(); ++j) {
      const Value* out = node.outputs.at(j);
      if (out == nullptr) continue;
      if (h_.has_own_place(out)) {
        copy_into(fr.states[j], out, op + " (final value)");
      } else {
        h_.view(out, fr.states[j]);
      }
    }
  }

  // [outer, length, inner] of `v` around `axis`.
  ScanAxis scan_axis(const Value* v, int64_t axis, bool reverse) const {
    graph::SymExpr outer = 1, inner = 1;
    for (int64_t i = 0; i < v->type.rank(); ++i)
      if (i != axis)
        (i < axis ? outer : inner) = (i < axis ? outer : inner) * v->type.shape[size_t(i)].sym();
    return {h_.symbols().expr(outer), h_.symbols().expr(v->type.shape[size_t(axis)].sym()),
            h_.symbols().expr(inner), reverse};
  }

  // Kernel `slice` = `whole` at the iteration (scan input) or the reverse (scan output).
  void add_scan_kernel(const graph::Node& node, const LoopFrame& fr, const Value* whole,
                       const Value* slice, const ScanAxis& axis, bool stack) {
    Buffer w = h_.param_buffer(whole, true), s = h_.param_buffer(slice, true),
           it = h_.param_buffer(fr.iter, false);
    if (whole->is_constant()) h_.place_constant(whole);
    if (slice->is_constant()) h_.place_constant(slice);
    tir::PrimFunc f = stack ? scan_stack_kernel(s, it, w, axis) : scan_slice_kernel(w, it, s, axis);
    const std::string op = ops::op_name(node.op);
    f.name = h_.unique_name(
        fmt::format("{}_{}_{}", h_.name_of(node.name), op, stack ? "stack" : "slice"));
    f.source_ops = {op + (stack ? " (scan output)" : " (scan input)")};
    h_.add_kernel(std::move(f), stack ? std::vector<const Value*>{slice, fr.iter, whole}
                                      : std::vector<const Value*>{whole, fr.iter, slice});
  }

  void lower_loop(const graph::Node& node) {
    const graph::Graph& body = *node.subgraphs.at(0);
    const size_t nc = size_t(node.attrs.get_int("num_carried", 0));
    std::vector<const Value*> initial(node.inputs.begin() + 2,
                                      node.inputs.begin() + 2 + std::ptrdiff_t(nc));
    LoopFrame fr = begin_loop(node, node.inputs[0], tir::Expr(), node.inputs[1], initial);
    std::vector<const Value*> bind = {fr.iter, fr.cond_state};
    bind.insert(bind.end(), fr.states.begin(), fr.states.end());
    for (const Value* v : captured(node)) bind.push_back(v);
    bind_body(body, 0, bind);
    h_.lower_nodes(body);
    for (size_t k = 0; 1 + nc + k < body.outputs.size(); ++k) {
      const Value* whole = node.outputs.at(nc + k);
      if (whole != nullptr)
        add_scan_kernel(node, fr, whole, body.outputs[1 + nc + k], scan_axis(whole, 0, false),
                        true);
    }
    std::vector<std::pair<const Value*, const Value*>> copies = {{body.outputs[0], fr.cond_state}};
    for (size_t j = 0; j < nc; ++j) copies.push_back({body.outputs[1 + j], fr.states[j]});
    parallel_copy(copies, "Loop (carried value)");
    end_loop(node, fr);
  }

  void lower_scan(const graph::Node& node) {
    const graph::Graph& body = *node.subgraphs.at(0);
    const size_t nc = size_t(node.attrs.get_int("num_carried", 0));
    const size_t ns = size_t(node.attrs.get_int("num_scan_inputs", 0));
    const std::vector<int64_t> in_axes = node.attrs.get_ints("scan_input_axes");
    const std::vector<int64_t> in_dirs = node.attrs.get_ints("scan_input_directions");
    const std::vector<int64_t> out_axes = node.attrs.get_ints("scan_output_axes");
    const std::vector<int64_t> out_dirs = node.attrs.get_ints("scan_output_directions");
    std::vector<const Value*> initial(node.inputs.begin(),
                                      node.inputs.begin() + std::ptrdiff_t(nc));
    const Value* first_scan = node.inputs.at(nc);
    tir::Expr length = h_.symbols().expr(first_scan->type.shape[size_t(in_axes.at(0))].sym());
    LoopFrame fr = begin_loop(node, nullptr, length, nullptr, initial);
    bind_body(body, 0, fr.states);
    std::vector<const Value*> caps = captured(node);
    bind_body(body, nc + ns, caps);
    for (size_t j = 0; j < ns; ++j) {
      const Value* whole = node.inputs[nc + j];
      add_scan_kernel(node, fr, whole, body.inputs[nc + j],
                      scan_axis(whole, in_axes.at(j), in_dirs.at(j) != 0), false);
    }
    h_.lower_nodes(body);
    for (size_t k = 0; nc + k < body.outputs.size(); ++k) {
      const Value* whole = node.outputs.at(nc + k);
      if (whole != nullptr)
        add_scan_kernel(node, fr, whole, body.outputs[nc + k],
                        scan_axis(whole, out_axes.at(k), out_dirs.at(k) != 0), true);
    }
    std::vector<std::pair<const Value*, const Value*>> copies;
    for (size_t j = 0; j < nc; ++j) copies.push_back({body.outputs[j], fr.states[j]});
    parallel_copy(copies, "Scan (state)");
    end_loop(node, fr);
  }

  LoweringHost& h_;
};

}  // namespace

bool lower_control_flow_node(const graph::Node& node, LoweringHost& host) {
  return ControlFlowLowering(host).lower(node);
}

}  // namespace ingot::lower
