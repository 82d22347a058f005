// Test helpers: build small onnx::ModelProto graphs in C++, serialize and import them, and look
// up nodes and constants in the imported graph.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "frontend/onnx/importer.h"
#include "graph/graph.h"
#include "support/error.h"

namespace ingot::frontend::testing {

using Ints = std::vector<int64_t>;

inline void set_attr(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_attr(onnx::NodeProto* n, const std::string& name, double v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(float(v));
}
inline void set_attr(onnx::NodeProto* n, const std::string& name, const char* v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
inline void set_attr(onnx::NodeProto* n, const std::string& name, const Ints& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
inline void set_attr(onnx::NodeProto* n, const std::string& name, const std::vector<float>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}
inline void set_attr(onnx::NodeProto* n, const std::string& name, const onnx::TensorProto& t) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = t;
}

inline onnx::TensorProto f32_tensor(const std::string& name, const Ints& dims,
                                    const std::vector<float>& vals, bool raw = true) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  if (raw)
    t.set_raw_data(std::string(reinterpret_cast<const char*>(vals.data()), vals.size() * 4));
  else
    for (float v : vals) t.add_float_data(v);
  return t;
}

inline onnx::TensorProto i64_tensor(const std::string& name, const Ints& dims, const Ints& vals,
                                    bool raw = false) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t.add_dims(d);
  if (raw)
    t.set_raw_data(std::string(reinterpret_cast<const char*>(vals.data()), vals.size() * 8));
  else
    for (int64_t v : vals) t.add_int64_data(v);
  return t;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 13) {
    m_.set_ir_version(8);
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name("test_graph");
  }
  onnx::ModelProto& model() { return m_; }
  onnx::GraphProto& graph() { return *m_.mutable_graph(); }

  // dims: >= 0 static; -1 leaves the dim without value or param.
  onnx::ValueInfoProto* input(const std::string& name, const Ints& dims,
                              int elem = onnx::TensorProto::FLOAT) {
    auto* vi = graph().add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
    }
    return vi;
  }
  void output(const std::string& name) { graph().add_output()->set_name(name); }
  onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = graph().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return n;
  }
  void init(const onnx::TensorProto& t) { *graph().add_initializer() = t; }

  std::string bytes() const { return m_.SerializeAsString(); }
  std::unique_ptr<graph::Graph> import(const std::string& dir = "") const {
    return import_onnx_bytes(bytes(), dir, "test.onnx");
  }

 private:
  onnx::ModelProto m_;
};

// The unique node named `name`; fails the test when absent.
inline const graph::Node* find_node(const graph::Graph& g, const std::string& name) {
  const graph::Node* found = nullptr;
  for (const auto& n : g.nodes())
    if (n->name == name) {
      EXPECT_EQ(found, nullptr) << "two nodes named " << name;
      found = n.get();
    }
  EXPECT_NE(found, nullptr) << "no node named " << name;
  return found;
}

inline std::vector<ops::OpKind> op_sequence(const graph::Graph& g) {
  std::vector<ops::OpKind> ops;
  for (const auto& n : g.nodes()) ops.push_back(n->op);
  return ops;
}

inline std::vector<int64_t> i64_values(const graph::Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.get_i64(i));
  return out;
}

inline std::vector<double> f64_values(const graph::Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(t.get_f64(i));
  return out;
}

// Runs `fn` and returns the UserError message ("" when nothing or something else was thrown).
template <typename Fn>
std::string user_error(Fn&& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
  return "no error";
}

// A model with input x (float32, `dims`) feeding the caller's nodes.
inline ModelBuilder model(int opset, const Ints& dims = {2, 3, 4}) {
  ModelBuilder b(opset);
  b.input("x", dims);
  return b;
}

}  // namespace ingot::frontend::testing
