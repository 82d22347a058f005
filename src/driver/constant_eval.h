// Constant folding with ingot's own kernels: nodes whose inputs are all constants are lowered
// with their compute rules, compiled for the host (whatever the compile target is) and run
// through the runtime at compile time, so folding never needs a second implementation of an
// op's semantics. graph::infer_types hands over a batch of such nodes at a time (a node may read
// the outputs of earlier nodes of its batch); the batch becomes one module, one library, one run.
#pragma once

#include <vector>

#include "codegen/target.h"
#include "graph/graph.h"
#include "graph/transforms/infer_types.h"

namespace ingot::driver {

struct FoldStats {
  int nodes = 0;       // nodes folded (their outputs became constants)
  int batches = 0;     // batches handed over by infer_types
  int modules = 0;     // libraries built and run (one per batch, more where a batch fell back)
  int declined = 0;    // nodes that could not be evaluated and stay in the graph
  double ms = 0;       // time spent evaluating
  std::string target;  // the target folded code is compiled for (the host's)
};

// Evaluates batches of constant nodes for graph::infer_types and counts what it did. The target
// is the machine running the compiler: folded code runs here, never on the compile target.
class ConstantFolder {
 public:
  explicit ConstantFolder(codegen::Target host = codegen::Target::host());

  // graph::ConstantEvaluator's contract: `nodes` in topological order, each input a constant or
  // an output of an earlier node of the batch; per node its output tensors, or an empty vector
  // when it cannot be evaluated (an op or dtype lowering does not support, or a node reading the
  // output of such a node). The whole batch is one module; when it fails to lower, the nodes
  // are evaluated one by one so that the others still fold.
  std::vector<std::vector<graph::TensorPtr>> evaluate(const std::vector<const graph::Node*>& nodes);
  // A graph::ConstantEvaluator calling evaluate() on this folder (which must outlive it).
  graph::ConstantEvaluator evaluator();

  const FoldStats& stats() const { return stats_; }

 private:
  codegen::Target host_;
  FoldStats stats_;
};

// One node alone (each input a constant): its outputs, or an empty vector when it cannot be
// evaluated (an unsupported op or dtype: it then stays in the graph and is reported where it is
// lowered). Compiled for the host.
std::vector<graph::TensorPtr> evaluate_constant_node(const graph::Node& node);

}  // namespace ingot::driver
