// Test helper: builds small ONNX models in memory (protobuf classes) and saves them to a file.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace ingot::testing {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int opset = 13) {
    model_.set_ir_version(8);
    auto* op = model_.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  // dims: >= 0 static; symbolic names via `symbols` (same length, "" for static).
  void input(const std::string& name, std::vector<int64_t> dims,
             int elem = onnx::TensorProto::FLOAT, std::vector<std::string> symbols = {}) {
    fill_value_info(model_.mutable_graph()->add_input(), name, dims, elem, symbols);
  }
  void output(const std::string& name, int elem = onnx::TensorProto::FLOAT) {
    auto* vi = model_.mutable_graph()->add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  }
  void initializer(const std::string& name, std::vector<int64_t> dims,
                   const std::vector<float>& v) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  void initializer_i64(const std::string& name, std::vector<int64_t> dims,
                       const std::vector<int64_t>& v) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto x : v) t->add_int64_data(x);
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> inputs,
                        std::vector<std::string> outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return n;
  }
  static void attr_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_float(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto x : v) a->add_ints(x);
  }
  void save(const std::string& path) const {
    std::ofstream f(path, std::ios::binary);
    model_.SerializeToOstream(&f);
  }

 private:
  static void fill_value_info(onnx::ValueInfoProto* vi, const std::string& name,
                              const std::vector<int64_t>& dims, int elem,
                              const std::vector<std::string>& symbols) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      auto* d = shape->add_dim();
      if (i < symbols.size() && !symbols[i].empty()) {
        d->set_dim_param(symbols[i]);
      } else {
        d->set_dim_value(dims[i]);
      }
    }
  }
  onnx::ModelProto model_;
};

}  // namespace ingot::testing
