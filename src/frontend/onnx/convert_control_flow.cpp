// Converters for control flow: If, Loop and Scan (opset 9+). Each body becomes a graph isolated
// from above (import_body): the outer values it reads become its trailing inputs and the node's
// trailing inputs (ops/control_flow.cpp). An If whose cond is a constant at import is replaced by
// the branch it takes, converted in place.
#include "frontend/onnx/converter.h"
#include "frontend/onnx/importer.h"

namespace ingot::frontend::detail {
namespace {

using ops::OpKind;
constexpr int kMax = kMaxOnnxOpset;

const onnx::GraphProto& required_body(NodeConverter& c, const char* attr) {
  const onnx::GraphProto* g = c.attr_graph(attr);
  if (g == nullptr) c.fail("required attribute '{}' (a graph) is missing", attr);
  return *g;
}

// Emits the control-flow node with its bodies; the outer values they capture follow `inputs`.
void emit_with_bodies(NodeConverter& c, OpKind op, std::vector<graph::Value*> inputs,
                      graph::Attrs attrs, std::vector<ImportedBody> bodies) {
  std::vector<ImportedBody*> ptrs;
  for (ImportedBody& b : bodies) ptrs.push_back(&b);
  std::vector<graph::Value*> outer = attach_captures(ptrs);
  attrs.set("num_captures", int64_t(outer.size()));
  inputs.insert(inputs.end(), outer.begin(), outer.end());
  graph::Node* n = c.emit(op, std::move(inputs), std::move(attrs), c.num_outputs());
  for (ImportedBody& b : bodies) n->subgraphs.push_back(std::move(b.graph));
}

std::string body_name(NodeConverter& c, const char* attr) {
  return fmt::format("body '{}' of node '{}' ({})", attr, c.name(), c.op_type());
}

void convert_if(NodeConverter& c) {
  graph::Value* cond = c.input(0, "cond");
  const onnx::GraphProto& then_g = required_body(c, "then_branch");
  const onnx::GraphProto& else_g = required_body(c, "else_branch");
  for (const onnx::GraphProto* g : {&then_g, &else_g})
    if (g->output_size() != c.num_outputs())
      c.fail("a branch has {} outputs, the node {}", g->output_size(), c.num_outputs());
  if (cond->is_constant() && cond->constant->num_elements() == 1) {
    const onnx::GraphProto& taken = cond->constant->get_i64(0) != 0 ? then_g : else_g;
    std::vector<graph::Value*> outs = convert_body_inline(c.state(), taken, body_name(c, "branch"));
    for (int i = 0; i < c.num_outputs(); ++i) c.bind_output(i, outs[size_t(i)]);
    return;
  }
  std::vector<ImportedBody> bodies;
  bodies.push_back(import_body(c.state(), then_g, body_name(c, "then_branch")));
  bodies.push_back(import_body(c.state(), else_g, body_name(c, "else_branch")));
  emit_with_bodies(c, OpKind::If, {cond}, {}, std::move(bodies));
}

void convert_loop(NodeConverter& c) {
  const onnx::GraphProto& g = required_body(c, "body");
  std::vector<graph::Value*> inputs = {c.optional_input(0), c.optional_input(1)};
  for (int i = 2; i < c.num_inputs(); ++i) inputs.push_back(c.input(i, "v_initial"));
  const int64_t carried = int64_t(inputs.size()) - 2;
  if (g.input_size() != carried + 2)
    c.fail("the body has {} inputs; {} carried values need {}", g.input_size(), carried,
           carried + 2);
  graph::Attrs attrs;
  attrs.set("num_carried", carried);
  std::vector<ImportedBody> bodies;
  bodies.push_back(import_body(c.state(), g, body_name(c, "body")));
  emit_with_bodies(c, OpKind::Loop, std::move(inputs), std::move(attrs), std::move(bodies));
}

void convert_scan(NodeConverter& c) {
  const onnx::GraphProto& g = required_body(c, "body");
  const int64_t scans = c.attr_int("num_scan_inputs").value_or(0);
  if (scans < 1 || scans > c.num_inputs())
    c.fail("num_scan_inputs must be in 1..{}, got {}", c.num_inputs(), scans);
  std::vector<graph::Value*> inputs;
  for (int i = 0; i < c.num_inputs(); ++i) inputs.push_back(c.input(i, "input"));
  graph::Attrs attrs;
  attrs.set("num_scan_inputs", scans);
  attrs.set("num_carried", int64_t(c.num_inputs()) - scans);
  for (const char* a :
       {"scan_input_axes", "scan_input_directions", "scan_output_axes", "scan_output_directions"})
    c.copy_attr(a, attrs);
  std::vector<ImportedBody> bodies;
  bodies.push_back(import_body(c.state(), g, body_name(c, "body")));
  emit_with_bodies(c, OpKind::Scan, std::move(inputs), std::move(attrs), std::move(bodies));
}

const ConverterEntry kTable[] = {
    {"If", 1, kMax, convert_if},
    {"Loop", 1, kMax, convert_loop},
    {"Scan", 9, kMax, convert_scan},
};

}  // namespace

std::span<const ConverterEntry> control_flow_converters() {
  return kTable;
}

}  // namespace ingot::frontend::detail
