// Folding Gemm's alpha into its constant B (see fold_gemm_alpha.h).
#include "graph/transforms/fold_gemm_alpha.h"

#include "graph/transforms/rewrite_util.h"

namespace ingot::graph {

void fold_gemm_alpha(Graph& g) {
  for (const auto& n : g.nodes()) {
    if (n->op != ops::OpKind::Gemm || n->inputs.size() < 2) continue;
    const double alpha = n->attrs.get_float("alpha", 1.0);
    Value* b = n->inputs[1];
    if (alpha == 1.0 || b == nullptr || !b->is_constant() || b->type.dtype != DType::kF32) continue;
    const Tensor& w = *b->constant;
    const float* wd = w.data_as<float>();
    std::vector<float> scaled(size_t(w.num_elements()));
    for (size_t i = 0; i < scaled.size(); ++i) scaled[i] = float(alpha * double(wd[i]));
    n->inputs[1] = g.add_constant(b->name + "_times_alpha", f32_constant(w.shape(), scaled));
    n->attrs.set("alpha", 1.0);
  }
}

}  // namespace ingot::graph
