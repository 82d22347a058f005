// Constant loads to literals (see fold_constant_loads.h).
#include "lower/fold_constant_loads.h"

#include "tir/mutator.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

class ConstantLoadFolder : public IRMutator {
 public:
  explicit ConstantLoadFolder(const std::map<const BufferNode*, graph::TensorPtr>& c)
      : constants_(c) {}

  Expr visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    Expr r = IRMutator::visit_BufferLoad(op, e);
    auto* l = r.as<BufferLoad>();
    auto it = constants_.find(l->buffer.get());
    if (it == constants_.end() || !l->dtype.is_scalar()) return r;
    const graph::Tensor& t = *it->second;
    if (t.num_elements() > kMaxFoldedConstantElements) return r;
    // Row-major flat index of constant indices over the buffer's shape.
    int64_t flat = 0;
    for (size_t d = 0; d < l->indices.size(); ++d) {
      auto* idx = l->indices[d].as<IntImm>();
      auto* ext = l->buffer->shape[d].as<IntImm>();
      if (idx == nullptr || ext == nullptr || idx->value < 0 || idx->value >= ext->value) return r;
      flat = flat * ext->value + idx->value;
    }
    if (flat >= t.num_elements()) return r;
    DataType d = l->dtype;
    if (d.is_float()) return make_const(d, t.get_f64(flat));
    return IntImm::make(d, t.get_i64(flat));
  }

 private:
  const std::map<const BufferNode*, graph::TensorPtr>& constants_;
};

}  // namespace

Stmt fold_constant_loads(const Stmt& body,
                         const std::map<const BufferNode*, graph::TensorPtr>& constants) {
  if (constants.empty()) return body;
  return ConstantLoadFolder(constants).mutate(body);
}

}  // namespace ingot::lower
