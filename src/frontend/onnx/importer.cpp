// The ONNX importer: reads and parses the model, checks its opset and graph, then builds the
// graph: initializers -> constants, inputs -> typed values, nodes -> converters, outputs.
#include "frontend/onnx/importer.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <unordered_set>

#include "frontend/onnx/converter.h"
#include "frontend/onnx/graph_check.h"
#include "frontend/onnx/tensor_proto.h"
#include "support/error.h"

namespace ingot::frontend {
namespace {

using detail::ImportState;
using detail::NodeConverter;

std::string read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_user("cannot open model file '{}': {}", path, std::strerror(errno));
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    fail_user("cannot open model file '{}': {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    fail_user("cannot open model file '{}': {}", path, std::strerror(EISDIR));
  std::string bytes;
  bytes.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t r = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_user("cannot read model file '{}': {}", path, std::strerror(errno));
    if (r == 0) break;
    done += size_t(r);
  }
  bytes.resize(done);
  return bytes;
}

void parse_model(const std::string& bytes, const std::string& display_name, onnx::ModelProto& m) {
  if (bytes.size() > size_t(INT_MAX))
    fail_user("'{}' is larger than 2 GB; store its weights as ONNX external data", display_name);
  google::protobuf::io::ArrayInputStream raw(bytes.data(), int(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);  // the default 64 MB limit would reject large models
  if (!m.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    fail_user("'{}' is not a valid ONNX model (protobuf parse failed)", display_name);
  if (!m.has_graph()) fail_user("'{}' is not a valid ONNX model: it has no graph", display_name);
}

// ONNX Runtime's contrib ops (microsoft_converters: MatMulNBits).
constexpr const char* kMicrosoftDomain = "com.microsoft";

bool is_default_domain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

int domain_opset(const onnx::ModelProto& m, const std::string& domain) {
  for (const auto& o : m.opset_import())
    if (o.domain() == domain || (is_default_domain(domain) && is_default_domain(o.domain())))
      return int(o.version());
  return 0;
}

int default_opset(const onnx::ModelProto& m, const std::string& display_name) {
  bool found = false;
  for (const auto& o : m.opset_import()) found |= is_default_domain(o.domain());
  if (!found)
    fail_user("'{}' is not a valid ONNX model: it imports no opset of the default ONNX domain",
              display_name);
  int opset = domain_opset(m, "");
  if (opset < kMinOnnxOpset || opset > kMaxOnnxOpset)
    fail_user("'{}' uses ONNX opset {}; ingot supports opsets {} to {}", display_name, opset,
              kMinOnnxOpset, kMaxOnnxOpset);
  return opset;
}

graph::TensorType input_type(const onnx::ValueInfoProto& vi) {
  const std::string& name = vi.name();
  if (!vi.type().has_tensor_type()) fail_user("graph input '{}' is not a tensor", name);
  const auto& tt = vi.type().tensor_type();
  auto dtype = detail::dtype_from_onnx(tt.elem_type());
  if (!dtype)
    fail_user("graph input '{}' has unsupported dtype {}", name,
              detail::onnx_dtype_name(tt.elem_type()));
  if (!tt.has_shape()) fail_user("graph input '{}' has no shape (its rank is unknown)", name);
  graph::TensorType type{*dtype, {}};
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& d = tt.shape().dim(i);
    if (d.has_dim_value() && d.dim_value() >= 0) {
      type.shape.push_back(graph::Dim::fixed(d.dim_value()));
    } else if (d.has_dim_param() && !d.dim_param().empty()) {
      type.shape.push_back(graph::Dim::named(d.dim_param()));
    } else if (d.has_dim_value()) {
      fail_user("graph input '{}' has negative dimension {} at index {}", name, d.dim_value(), i);
    } else {
      type.shape.push_back(graph::Dim::named(fmt::format("{}_dim{}", name, i)));
    }
  }
  return type;
}

void convert_node(ImportState& state, const onnx::NodeProto& node, const std::string& name) {
  const onnx::ModelProto& m = *state.model;
  if (node.domain() == kMicrosoftDomain) {
    const int opset = domain_opset(m, kMicrosoftDomain);
    for (const detail::ConverterEntry& e : detail::microsoft_converters()) {
      if (e.op_type != node.op_type() || opset < e.min_opset || opset > e.max_opset) continue;
      NodeConverter conv(state, node, name);
      e.fn(conv);
      conv.check_all_attrs_consumed();
      return;
    }
  }
  if (!is_default_domain(node.domain()))
    fail_user("node '{}' ({}, opset {}): unsupported operator in domain '{}'", name, node.op_type(),
              domain_opset(m, node.domain()), node.domain());
  std::optional<std::pair<int, int>> range;
  const detail::ConverterEntry* entry = detail::find_converter(node.op_type(), state.opset, &range);
  if (!entry) {
    if (range)
      fail_user(
          "node '{}' ({}, opset {}): unsupported operator (ingot supports {} at opsets {} to "
          "{})",
          name, node.op_type(), state.opset, node.op_type(), range->first, range->second);
    fail_user("node '{}' ({}, opset {}): unsupported operator", name, node.op_type(), state.opset);
  }
  NodeConverter conv(state, node, name);
  entry->fn(conv);
  conv.check_all_attrs_consumed();
}

// Records the names a graph defines and reads (its bodies' reads included).
void note_names(ImportState& state, const onnx::GraphProto& g) {
  for (const auto& node : g.node()) {
    state.taken_names.insert(node.output().begin(), node.output().end());
    state.used_names.insert(node.input().begin(), node.input().end());
    state.used_names.merge(detail::implicit_inputs(node));
  }
  for (const auto& out : g.output()) state.used_names.insert(out.name());
}

// The names visible to a body of a node of `state`'s graph: every value of the enclosing graphs.
std::unordered_set<std::string> visible_names(const ImportState& state) {
  std::unordered_set<std::string> names;
  for (const ImportState* s = &state; s != nullptr; s = s->parent)
    for (const auto& [name, v] : s->values) names.insert(name);
  return names;
}

// A body input's declared type, when it is a complete tensor type; else a placeholder that the
// control-flow op's inference replaces (bodies often leave their inputs' shapes out).
graph::TensorType body_input_type(const onnx::ValueInfoProto& vi) {
  const auto& tt = vi.type().tensor_type();
  auto dtype = vi.type().has_tensor_type() ? detail::dtype_from_onnx(tt.elem_type()) : std::nullopt;
  graph::TensorType type{dtype.value_or(graph::DType::kF32), {}};
  if (!tt.has_shape()) return type;
  for (const auto& d : tt.shape().dim())
    type.shape.push_back(d.has_dim_value() ? graph::Dim::fixed(d.dim_value())
                                           : graph::Dim::named(d.dim_param()));
  return type;
}

// Bodies whose inputs or outputs are sequences, optionals or maps are not supported.
void check_body_types(const onnx::GraphProto& body, const std::string& what) {
  for (const auto* list : {&body.input(), &body.output()})
    for (const onnx::ValueInfoProto& vi : *list)
      if (vi.has_type() && !vi.type().has_tensor_type())
        fail_user("{}: '{}' is not a tensor (sequences, optionals and maps are not supported)",
                  what, vi.name());
}

// The constant a specialised input's readers see, after checking its value against the input's
// declared type.
graph::Value* specialized_constant(ImportState& state, const graph::Value& input,
                                   const graph::TensorPtr& value, const ImportOptions& options) {
  const graph::TensorType& want = input.type;
  bool fits = value->dtype() == want.dtype && int(value->shape().size()) == want.rank();
  for (int i = 0; fits && i < want.rank(); ++i)
    fits = !want.shape[i].is_static() || want.shape[i].value == value->shape()[size_t(i)];
  if (!fits)
    fail_user("{}: input '{}' of the model is {}, but its specialised value is {}",
              options.specialized_source, input.name, want.str(), value->type().str());
  return state.graph->add_constant(state.fresh_name(input.name + "_specialized"), value);
}

}  // namespace

std::unique_ptr<graph::Graph> import_onnx_bytes(const std::string& bytes,
                                                const std::string& model_dir,
                                                const std::string& display_name,
                                                const ImportOptions& options) {
  onnx::ModelProto model;
  parse_model(bytes, display_name, model);
  const int opset = default_opset(model, display_name);
  const onnx::GraphProto& g = model.graph();
  const std::vector<int> order = detail::check_and_order_graph(g, display_name);

  auto result = std::make_unique<graph::Graph>();
  result->name = g.name();
  ImportState state;
  state.graph = result.get();
  state.opset = opset;
  state.model_dir = model_dir;
  for (const auto& in : g.input()) state.taken_names.insert(in.name());
  for (const auto& t : g.initializer()) state.taken_names.insert(t.name());
  note_names(state, g);

  std::unordered_set<std::string> initializer_names;
  for (const auto& t : g.initializer()) {
    auto data = detail::tensor_from_proto(t, fmt::format("initializer '{}'", t.name()), model_dir);
    state.values[t.name()] = result->add_constant(t.name(), std::move(data));
    initializer_names.insert(t.name());
  }
  for (const auto& in : g.input()) {
    if (initializer_names.count(in.name())) continue;  // opset < 9 models list weights as inputs
    graph::Value* v = result->add_value(in.name(), input_type(in));
    state.values[in.name()] = v;
    result->inputs.push_back(v);
  }
  for (const auto& [name, value] : options.specialized_inputs) {
    auto it = std::find_if(result->inputs.begin(), result->inputs.end(),
                           [&](const graph::Value* v) { return v->name == name; });
    if (it == result->inputs.end()) {
      std::string names;
      for (const graph::Value* v : result->inputs) names += (names.empty() ? "" : ", ") + v->name;
      fail_user("{}: '{}' is not an input of model '{}' (inputs: {})", options.specialized_source,
                name, display_name, names.empty() ? "none" : names);
    }
    state.values[name] = specialized_constant(state, **it, value, options);
  }
  state.model = &model;
  for (int index : order) {
    const onnx::NodeProto& node = g.node(index);
    convert_node(state, node, detail::node_name(node, index));
  }
  for (const auto& out : g.output()) {
    auto it = state.values.find(out.name());
    INGOT_ICHECK(it != state.values.end(), "graph output '{}' was not bound by its converter",
                 out.name());
    // An output that is a specialised input itself stays that input.
    graph::Value* v = it->second;
    if (options.specialized_inputs.count(out.name()))
      v = *std::find_if(result->inputs.begin(), result->inputs.end(),
                        [&](const graph::Value* in) { return in->name == out.name(); });
    result->outputs.push_back(v);
  }
  return result;
}

namespace detail {

std::vector<graph::Value*> convert_body_inline(ImportState& state, const onnx::GraphProto& body,
                                               const std::string& what) {
  if (body.input_size() != 0)
    fail_user("{} takes {} inputs; a branch takes none", what, body.input_size());
  check_body_types(body, what);
  std::unordered_set<std::string> visible = visible_names(state);
  const std::vector<int> order = check_and_order_graph(body, what, &visible);
  note_names(state, body);
  for (const auto& t : body.initializer())
    state.values[t.name()] = state.graph->add_constant(
        t.name(), tensor_from_proto(t, fmt::format("initializer '{}'", t.name()), state.model_dir));
  for (int index : order) {
    const onnx::NodeProto& node = body.node(index);
    convert_node(state, node, node_name(node, index));
  }
  std::vector<graph::Value*> outs;
  for (const auto& o : body.output()) {
    outs.push_back(state.lookup(o.name()));
    INGOT_ICHECK(outs.back() != nullptr, "output '{}' of {} was not bound", o.name(), what);
  }
  return outs;
}

ImportedBody import_body(ImportState& outer, const onnx::GraphProto& body,
                         const std::string& what) {
  check_body_types(body, what);
  std::unordered_set<std::string> visible = visible_names(outer);
  const std::vector<int> order = check_and_order_graph(body, what, &visible);
  ImportedBody out;
  out.graph = std::make_shared<graph::Graph>();
  out.graph->name = body.name();
  ImportState state;
  state.graph = out.graph.get();
  state.opset = outer.opset;
  state.model_dir = outer.model_dir;
  state.model = outer.model;
  state.parent = &outer;
  for (const auto& in : body.input()) state.taken_names.insert(in.name());
  for (const auto& t : body.initializer()) state.taken_names.insert(t.name());
  note_names(state, body);
  for (const auto& t : body.initializer())
    state.values[t.name()] = out.graph->add_constant(
        t.name(), tensor_from_proto(t, fmt::format("initializer '{}'", t.name()), outer.model_dir));
  for (const auto& in : body.input()) {
    graph::Value* v = out.graph->add_value(in.name(), body_input_type(in));
    v->body_input = true;
    state.values[in.name()] = v;
    out.graph->inputs.push_back(v);
  }
  for (int index : order) {
    const onnx::NodeProto& node = body.node(index);
    convert_node(state, node, node_name(node, index));
  }
  for (const auto& o : body.output()) {
    graph::Value* v = state.lookup(o.name());
    INGOT_ICHECK(v != nullptr, "output '{}' of {} was not bound", o.name(), what);
    out.graph->outputs.push_back(v);
  }
  out.outer = state.captured_outer;
  out.local = state.captured_local;
  return out;
}

std::vector<graph::Value*> attach_captures(std::vector<ImportedBody*> bodies) {
  std::vector<graph::Value*> all;
  for (const ImportedBody* b : bodies)
    for (graph::Value* v : b->outer)
      if (std::find(all.begin(), all.end(), v) == all.end()) all.push_back(v);
  for (ImportedBody* b : bodies) {
    for (graph::Value* v : all) {
      auto it = std::find(b->outer.begin(), b->outer.end(), v);
      graph::Value* in = it != b->outer.end() ? b->local[size_t(it - b->outer.begin())]
                                              : b->graph->add_value(v->name + "_unused", v->type);
      in->body_input = true;
      b->graph->inputs.push_back(in);
    }
  }
  return all;
}

}  // namespace detail

std::unique_ptr<graph::Graph> import_onnx_file(const std::string& path,
                                               const ImportOptions& options) {
  std::string bytes = read_file(path);
  std::string dir = std::filesystem::path(path).parent_path().string();
  return import_onnx_bytes(bytes, dir, path, options);
}

}  // namespace ingot::frontend
