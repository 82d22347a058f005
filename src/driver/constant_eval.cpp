// Constant folding with ingot's own kernels (see constant_eval.h): a batch of nodes becomes a
// graph of its own (constant inputs as constants, every output a graph output), lowered,
// compiled for the host into one library in a scratch directory, loaded and run once.
#include "driver/constant_eval.h"

#include <dlpack/dlpack.h>

#include <chrono>
#include <cstring>
#include <unordered_map>

#include "codegen/build.h"
#include "codegen/link.h"
#include "ingot/runtime.h"
#include "lower/lower_graph.h"
#include "schedule/rules/default_rules.h"
#include "support/error.h"

namespace ingot::driver {

namespace {

// The batch as a graph of its own. `known` gives the values of inputs produced outside the
// graph (earlier nodes evaluated one by one); other non-constant inputs must come from earlier
// nodes of the batch. `slots` maps each graph output to its (node, output) in the batch.
struct BatchGraph {
  graph::Graph g;
  std::vector<std::pair<size_t, size_t>> slots;
};

BatchGraph batch_graph(const std::vector<const graph::Node*>& nodes,
                       const std::unordered_map<const graph::Value*, graph::TensorPtr>& known) {
  BatchGraph b;
  b.g.name = "constant_fold";
  std::unordered_map<const graph::Value*, graph::Value*> map;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const graph::Node& node = *nodes[i];
    std::vector<graph::Value*> ins;
    for (const graph::Value* v : node.inputs) {
      if (v == nullptr) {
        ins.push_back(nullptr);
        continue;
      }
      auto it = map.find(v);
      if (it == map.end()) {
        graph::TensorPtr data = v->constant;
        if (!data) {
          auto k = known.find(v);
          INGOT_ICHECK(k != known.end(), "constant folding: {} reads '{}', which is not constant",
                       node.describe(), v->name);
          data = k->second;
        }
        // Named apart: a folded constant keeps the name of the value it replaced.
        std::string name = "c" + std::to_string(map.size()) + "_" + v->name;
        it = map.emplace(v, b.g.add_constant(name, data)).first;
      }
      ins.push_back(it->second);
    }
    std::vector<std::string> names;
    for (size_t k = 0; k < node.outputs.size(); ++k)
      names.push_back("n" + std::to_string(i) + "_out" + std::to_string(k));
    graph::Node* n = b.g.add_node(node.op, node.name, ins, names, node.attrs);
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      if (node.outputs[k] == nullptr) continue;
      map[node.outputs[k]] = n->outputs[k];
      b.g.outputs.push_back(n->outputs[k]);
      b.slots.emplace_back(i, k);
    }
  }
  return b;
}

// Lowers the batch graph; nullopt when lowering does not support something in it.
std::optional<tir::IRModule> lower_batch(BatchGraph& b) {
  try {
    graph::infer_types(b.g);
    return lower::lower_graph(b.g);
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// Compiles `mod` for `target`, runs it once and returns its outputs, one tensor per graph
// output of `g`.
std::vector<graph::TensorPtr> run_module(const tir::IRModule& mod, const graph::Graph& g,
                                         const codegen::Target& target) {
  codegen::ScratchDir scratch;
  std::string path = scratch.path() + "/constant_fold.so";
  // The injective rule's default schedules (lowering made no other scheduled kernels).
  tir::IRModule scheduled = mod;
  schedule::apply_default_schedules(scheduled, target.is_aarch64()
                                                   ? CpuVectorIsa::aarch64_neon()
                                                   : CpuVectorIsa::x86(target.vector_bits));
  codegen::build_shared_library(scheduled, target, path);
  IngotModel* model = nullptr;
  IngotSession* session = nullptr;
  if (ingot_model_load(path.c_str(), &model) != 0 || ingot_session_create(model, &session) != 0 ||
      ingot_session_run(session) != 0) {
    std::string why = ingot_last_error();
    ingot_session_free(session);
    ingot_model_free(model);
    fail_internal("constant folding of {} nodes: {}", g.nodes().size(), why);
  }
  std::vector<graph::TensorPtr> out;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    DLTensor view{};
    ingot_session_output(session, int32_t(i), &view);
    const graph::TensorType& t = g.outputs[i]->type;
    std::vector<uint8_t> bytes(size_t(t.num_elements() * graph::dtype_bytes(t.dtype)));
    if (!bytes.empty()) std::memcpy(bytes.data(), view.data, bytes.size());
    out.push_back(std::make_shared<graph::Tensor>(t.dtype, t.static_shape(), std::move(bytes)));
  }
  ingot_session_free(session);
  ingot_model_free(model);
  return out;
}

}  // namespace

ConstantFolder::ConstantFolder(codegen::Target host) : host_(std::move(host)) {
  stats_.target = host_.str();
}

std::vector<std::vector<graph::TensorPtr>> ConstantFolder::evaluate(
    const std::vector<const graph::Node*>& nodes) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<graph::TensorPtr>> result(nodes.size());
  ++stats_.batches;

  // 1. The whole batch as one module.
  BatchGraph b = batch_graph(nodes, {});
  if (std::optional<tir::IRModule> mod = lower_batch(b)) {
    ++stats_.modules;
    std::vector<graph::TensorPtr> outs = run_module(*mod, b.g, host_);
    for (size_t i = 0; i < nodes.size(); ++i) result[i].resize(nodes[i]->outputs.size());
    for (size_t o = 0; o < outs.size(); ++o)
      result[b.slots[o].first][b.slots[o].second] = std::move(outs[o]);
  } else {
    // 2. Lowering declined something: node by node, so that the others still fold.
    std::unordered_map<const graph::Value*, graph::TensorPtr> known;
    for (size_t i = 0; i < nodes.size(); ++i) {
      bool inputs_known = true;
      for (const graph::Value* v : nodes[i]->inputs)
        if (v != nullptr && !v->is_constant() && !known.count(v)) inputs_known = false;
      if (!inputs_known) continue;
      BatchGraph one = batch_graph({nodes[i]}, known);
      std::optional<tir::IRModule> mod = lower_batch(one);
      if (!mod) continue;
      ++stats_.modules;
      std::vector<graph::TensorPtr> outs = run_module(*mod, one.g, host_);
      result[i].resize(nodes[i]->outputs.size());
      for (size_t o = 0; o < outs.size(); ++o) {
        size_t k = one.slots[o].second;
        known[nodes[i]->outputs[k]] = outs[o];
        result[i][k] = std::move(outs[o]);
      }
    }
  }
  for (const auto& r : result) (r.empty() ? stats_.declined : stats_.nodes) += 1;
  stats_.ms +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

graph::ConstantEvaluator ConstantFolder::evaluator() {
  return [this](const std::vector<const graph::Node*>& nodes) { return evaluate(nodes); };
}

std::vector<graph::TensorPtr> evaluate_constant_node(const graph::Node& node) {
  ConstantFolder folder;
  return folder.evaluate({&node}).front();
}

}  // namespace ingot::driver
