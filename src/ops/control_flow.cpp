// Control-flow ops: If, Loop and Scan, each with bodies (Node::subgraphs) that are graphs isolated
// from above. A body's inputs are the op's formal body inputs followed by one per captured outer
// value; the node lists those outer values as its inputs after its own (attribute num_captures),
// so liveness, dead code and topological order see every value a body reads.
//   If(cond, captures...): bodies then, else, inputs = the captures; outputs: either body's.
//   Loop(M?, cond?, v_initial[num_carried]..., captures...): body(iter, cond, v[num_carried]...,
//     captures...) -> (cond, v[num_carried]..., scan outputs...); outputs: the final v's, then
//     each scan output stacked along a new axis 0 (trip_count long: static, decided at compile
//     time from a constant M with no early exit).
//   Scan(state[num_carried]..., scan inputs[num_scan_inputs]..., captures...) (opset 9+):
//     body(state..., one slice of each scan input..., captures...) -> (state..., scan outputs);
//     outputs: the final states, then the scan outputs stacked along scan_output_axes.
// Inference binds the bodies' input types from the node's (bind_bodies), infers each body
// (graph::infer_types), then checks the bodies' outputs: one fixed type per If output and per
// loop-carried value, which ingot's static memory plan needs.
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

int64_t captures(const Node& n) {
  return n.attrs.get_int("num_captures", 0);
}

const graph::Graph& body(const Node& n, size_t i) {
  INGOT_ICHECK(i < n.subgraphs.size() && n.subgraphs[i], "{} lacks body {}", n.describe(), i);
  return *n.subgraphs[i];
}

// Checks the body's input and output counts against what the node implies.
void check_arity(const Node& n, const graph::Graph& g, size_t formal_in, size_t outs,
                 const char* what) {
  if (g.inputs.size() != formal_in + size_t(captures(n)) || g.outputs.size() != outs)
    fail_user("{}: body '{}' has {} inputs and {} outputs; the node implies {} and {}",
              n.describe(), what, g.inputs.size() - size_t(captures(n)), g.outputs.size(),
              formal_in, outs);
}

// The body's capture inputs take their outer values' types.
void bind_captures(const Node& n, graph::Graph& g, size_t formal_in) {
  const size_t c = size_t(captures(n));
  for (size_t i = 0; i < c; ++i)
    g.inputs[formal_in + i]->type = n.inputs[n.inputs.size() - c + i]->type;
}

bool is_scalar_of(const TensorType& t, DType d) {
  return t.dtype == d && t.is_static() && t.num_elements() == 1;
}

TensorType scalar(DType d) {
  return TensorType{d, {}};
}

// ---- If ----

void bind_if(Node& n) {
  for (size_t b = 0; b < 2; ++b) {
    graph::Graph& g = *n.subgraphs.at(b);
    check_arity(n, g, 0, n.outputs.size(), b == 0 ? "then_branch" : "else_branch");
    bind_captures(n, g, 0);
  }
}

std::vector<TensorType> infer_if(Node& n) {
  if (!is_scalar_of(input_type(n, 0, "cond"), DType::kBool))
    fail_user("{}: cond must be a bool tensor of one element, got {}", n.describe(),
              n.inputs[0]->type.str());
  const graph::Graph &then_g = body(n, 0), &else_g = body(n, 1);
  std::vector<TensorType> out;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const TensorType &a = then_g.outputs[i]->type, &b = else_g.outputs[i]->type;
    if (!(a == b))
      fail_user(
          "{}: output {} is {} in then_branch but {} in else_branch; ingot needs one type per "
          "If output",
          n.describe(), i, a.str(), b.str());
    out.push_back(a);
  }
  return out;
}

// ---- Loop ----

int64_t carried(const Node& n) {
  return n.attrs.get_int("num_carried", 0);
}

void bind_loop(Node& n) {
  graph::Graph& g = *n.subgraphs.at(0);
  const size_t nc = size_t(carried(n));
  if (g.inputs.size() < 2 + nc || g.outputs.size() < 1 + nc)
    fail_user(
        "{}: body has {} inputs and {} outputs; a Loop with {} carried values needs {} and "
        "at least {}",
        n.describe(), g.inputs.size(), g.outputs.size(), nc, 2 + nc, 1 + nc);
  check_arity(n, g, 2 + nc, g.outputs.size(), "body");
  g.inputs[0]->type = scalar(DType::kI64);
  g.inputs[1]->type = scalar(DType::kBool);
  for (size_t i = 0; i < nc; ++i) g.inputs[2 + i]->type = input_type(n, int(2 + i), "v_initial");
  bind_captures(n, g, 2 + nc);
}

// Whether the loop may stop before M iterations: a cond that is not constant true, or a body
// whose cond output is not its cond input or a constant true.
bool may_exit_early(const Node& n, const graph::Graph& g) {
  auto constant_true = [](const graph::Value* v) {
    return v != nullptr && v->is_constant() && v->constant->num_elements() == 1 &&
           v->constant->get_i64(0) != 0;
  };
  if (n.inputs[1] != nullptr && !constant_true(n.inputs[1])) return true;
  const graph::Value* c = g.outputs[0];
  while (c->producer != nullptr && c->producer->op == OpKind::Identity) c = c->producer->inputs[0];
  return !(c == g.inputs[1] || constant_true(c));
}

std::vector<TensorType> infer_loop(Node& n) {
  const graph::Graph& g = body(n, 0);
  const size_t nc = size_t(carried(n));
  const graph::Value* m = n.inputs[0];
  if (m != nullptr && !is_scalar_of(m->type, DType::kI64))
    fail_user("{}: M must be an int64 tensor of one element, got {}", n.describe(), m->type.str());
  if (n.inputs[1] != nullptr && !is_scalar_of(n.inputs[1]->type, DType::kBool))
    fail_user("{}: cond must be a bool tensor of one element, got {}", n.describe(),
              n.inputs[1]->type.str());
  if (m == nullptr && n.inputs[1] == nullptr)
    fail_user("{}: a Loop with neither M nor cond never ends", n.describe());
  if (!is_scalar_of(g.outputs[0]->type, DType::kBool))
    fail_user("{}: the body's cond output must be a bool of one element, got {}", n.describe(),
              g.outputs[0]->type.str());
  std::vector<TensorType> out;
  for (size_t i = 0; i < nc; ++i) {
    const TensorType &in = g.inputs[2 + i]->type, &o = g.outputs[1 + i]->type;
    if (!(in == o))
      fail_user(
          "{}: loop-carried value {} ('{}') enters the body as {} and leaves it as {}; ingot "
          "needs one type per carried value",
          n.describe(), i, g.inputs[2 + i]->name, in.str(), o.str());
    out.push_back(o);
  }
  const size_t scans = g.outputs.size() - 1 - nc;
  int64_t trips = -1;
  if (m != nullptr && m->is_constant() && !may_exit_early(n, g))
    trips = std::max<int64_t>(0, m->constant->get_i64(0));
  n.attrs.set("trip_count", trips);
  for (size_t k = 0; k < scans; ++k) {
    const graph::Value* y = g.outputs[1 + nc + k];
    if (trips < 0)
      fail_user(
          "{}: scan output '{}' has a length decided at run time (M is not a constant, or the "
          "loop may stop early); make M a constant (--specialize-inputs) or the loop "
          "unconditional",
          n.describe(), n.outputs[nc + k] ? n.outputs[nc + k]->name : y->name);
    TensorType t = y->type;
    t.shape.insert(t.shape.begin(), Dim::fixed(trips));
    out.push_back(t);
  }
  return out;
}

// ---- Scan ----

void bind_scan(Node& n) {
  graph::Graph& g = *n.subgraphs.at(0);
  const size_t nc = size_t(carried(n));
  const int64_t ns = n.attrs.get_int("num_scan_inputs", 0);
  const size_t formal = n.inputs.size() - size_t(captures(n));
  if (ns < 1 || formal != nc + size_t(ns))
    fail_user("{}: num_scan_inputs is {} with {} inputs and {} states", n.describe(), ns, formal,
              nc);
  check_arity(n, g, formal, g.outputs.size(), "body");
  if (g.outputs.size() < nc)
    fail_user("{}: body has {} outputs, fewer than the {} states", n.describe(), g.outputs.size(),
              nc);
  std::vector<int64_t> axes = n.attrs.get_ints("scan_input_axes", std::vector<int64_t>(ns, 0));
  if (int64_t(axes.size()) != ns)
    fail_user("{}: scan_input_axes has {} entries for {} scan inputs", n.describe(), axes.size(),
              ns);
  for (size_t i = 0; i < nc; ++i) g.inputs[i]->type = input_type(n, int(i), "initial_state");
  for (int64_t j = 0; j < ns; ++j) {
    TensorType t = input_type(n, int(nc + size_t(j)), "scan_input");
    axes[j] = normalize_axis(n, axes[j], t.rank(), "scan_input_axes");
    t.shape.erase(t.shape.begin() + axes[j]);
    g.inputs[nc + size_t(j)]->type = t;
  }
  n.attrs.set("scan_input_axes", axes);
  bind_captures(n, g, formal);
}

std::vector<TensorType> infer_scan(Node& n) {
  const graph::Graph& g = body(n, 0);
  const size_t nc = size_t(carried(n));
  const int64_t ns = n.attrs.get_int("num_scan_inputs", 0);
  const size_t scans = g.outputs.size() - nc;
  std::vector<int64_t> in_axes = n.attrs.get_ints("scan_input_axes");
  std::optional<Dim> length;
  for (int64_t j = 0; j < ns; ++j) {
    const TensorType& t = n.inputs[nc + size_t(j)]->type;
    Dim d = t.shape[size_t(in_axes[size_t(j)])];
    length = length ? merge_dims(n, *length, d, "the scan length") : d;
  }
  for (const char* attr : {"scan_input_directions", "scan_output_directions"}) {
    size_t want = attr[5] == 'i' ? size_t(ns) : scans;
    std::vector<int64_t> d = n.attrs.get_ints(attr, std::vector<int64_t>(want, 0));
    if (d.size() != want ||
        std::any_of(d.begin(), d.end(), [](int64_t x) { return x != 0 && x != 1; }))
      fail_user("{}: {} must have {} entries of 0 or 1", n.describe(), attr, want);
    n.attrs.set(attr, d);
  }
  std::vector<TensorType> out;
  for (size_t i = 0; i < nc; ++i) {
    const TensorType &in = g.inputs[i]->type, &o = g.outputs[i]->type;
    if (!(in == o))
      fail_user(
          "{}: state {} ('{}') enters the body as {} and leaves it as {}; ingot needs one type "
          "per state",
          n.describe(), i, g.inputs[i]->name, in.str(), o.str());
    out.push_back(o);
  }
  std::vector<int64_t> out_axes =
      n.attrs.get_ints("scan_output_axes", std::vector<int64_t>(scans, 0));
  if (out_axes.size() != scans)
    fail_user("{}: scan_output_axes has {} entries for {} scan outputs", n.describe(),
              out_axes.size(), scans);
  for (size_t k = 0; k < scans; ++k) {
    TensorType t = g.outputs[nc + k]->type;
    out_axes[k] = normalize_axis(n, out_axes[k], t.rank() + 1, "scan_output_axes");
    t.shape.insert(t.shape.begin() + out_axes[k], *length);
    out.push_back(t);
  }
  n.attrs.set("scan_output_axes", out_axes);
  return out;
}

}  // namespace

void add_control_flow_ops(std::vector<OpInfo>& t) {
  OpInfo if_op{OpKind::If, "If", PatternKind::kOpaque, {{"num_captures", AttrType::kInt}}};
  if_op.min_inputs = 1;
  if_op.max_inputs = -1;
  if_op.num_outputs = -1;
  if_op.infer_fn = infer_if;
  if_op.bind_bodies_fn = bind_if;
  if_op.flops_fn = no_flops;
  t.push_back(std::move(if_op));

  OpInfo loop{OpKind::Loop,
              "Loop",
              PatternKind::kOpaque,
              {{"num_captures", AttrType::kInt},
               {"num_carried", AttrType::kInt, true},
               {"trip_count", AttrType::kInt}}};
  loop.min_inputs = 2;
  loop.max_inputs = -1;
  loop.num_outputs = -1;
  loop.infer_fn = infer_loop;
  loop.bind_bodies_fn = bind_loop;
  loop.flops_fn = no_flops;
  t.push_back(std::move(loop));

  OpInfo scan{OpKind::Scan,
              "Scan",
              PatternKind::kOpaque,
              {{"num_captures", AttrType::kInt},
               {"num_carried", AttrType::kInt, true},
               {"num_scan_inputs", AttrType::kInt, true},
               {"scan_input_axes", AttrType::kInts},
               {"scan_input_directions", AttrType::kInts},
               {"scan_output_axes", AttrType::kInts},
               {"scan_output_directions", AttrType::kInts}}};
  scan.min_inputs = 1;
  scan.max_inputs = -1;
  scan.num_outputs = -1;
  scan.infer_fn = infer_scan;
  scan.bind_bodies_fn = bind_scan;
  scan.flops_fn = no_flops;
  t.push_back(std::move(scan));
}

}  // namespace ingot::ops::detail
