// Constant folding with ingot's own kernels (see constant_eval.h).
#include "driver/constant_eval.h"

#include <dlpack/dlpack.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "codegen/build.h"
#include "codegen/target.h"
#include "graph/transforms/infer_types.h"
#include "ingot/runtime.h"
#include "lower/lower_graph.h"
#include "support/error.h"

namespace ingot::driver {

namespace {

// A temporary artifact file, removed on scope exit.
struct TempArtifact {
  std::string path;
  TempArtifact() {
    static int counter = 0;
    path = (std::filesystem::temp_directory_path() /
            ("ingot_fold_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".so"))
               .string();
  }
  ~TempArtifact() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};

}  // namespace

std::vector<graph::TensorPtr> evaluate_constant_node(const graph::Node& node) {
  // 1. The node alone, its inputs as constants, its outputs as the graph's outputs.
  graph::Graph sub;
  sub.name = "constant_fold";
  std::vector<graph::Value*> ins;
  for (const graph::Value* v : node.inputs)
    ins.push_back(v ? sub.add_constant(v->name, v->constant) : nullptr);
  std::vector<std::string> names;
  for (size_t i = 0; i < node.outputs.size(); ++i) names.push_back("out" + std::to_string(i));
  graph::Node* n = sub.add_node(node.op, node.name, ins, names, node.attrs);
  sub.outputs = n->outputs;
  tir::IRModule mod;
  try {
    graph::infer_types(sub);
    mod = lower::lower_graph(sub);
  } catch (const UserError&) {
    return {};
  }
  // 2. Compiled for the host and run through the runtime.
  TempArtifact art;
  codegen::build_shared_library(mod, codegen::Target::host(), art.path);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  if (ingot_model_load(art.path.c_str(), &model) != 0 ||
      ingot_session_create(model, &session) != 0 || ingot_session_run(session) != 0) {
    std::string why = ingot_last_error();
    ingot_session_free(session);
    ingot_model_free(model);
    fail_internal("constant folding of {}: {}", node.describe(), why);
  }
  std::vector<graph::TensorPtr> out;
  for (size_t i = 0; i < n->outputs.size(); ++i) {
    DLTensor view{};
    ingot_session_output(session, int32_t(i), &view);
    const graph::TensorType& t = n->outputs[i]->type;
    std::vector<uint8_t> bytes(size_t(t.num_elements() * graph::dtype_bytes(t.dtype)));
    if (!bytes.empty()) std::memcpy(bytes.data(), view.data, bytes.size());
    out.push_back(std::make_shared<graph::Tensor>(t.dtype, t.static_shape(), std::move(bytes)));
  }
  ingot_session_free(session);
  ingot_model_free(model);
  return out;
}

}  // namespace ingot::driver
