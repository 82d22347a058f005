// Unroll loops: a mutator replacing short kUnrolled loops by copies of their body.
#include "tir/transforms/unroll_loops.h"

#include "tir/arith/const_fold.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::tir {
namespace {

class Unroller : public IRMutator {
 public:
  explicit Unroller(int max_extent) : max_extent_(max_extent) {}

  Stmt visit_For(const For* op, const Stmt& s) override {
    Stmt loop = IRMutator::visit_For(op, s);
    auto* f = loop.as<For>();
    int64_t n;
    if (f->kind != ForKind::kUnrolled || !is_const_int(f->extent, &n) || n > max_extent_)
      return loop;
    if (n <= 0) return Evaluate::make(IntImm::make(DataType::i32(), 0));
    std::vector<Stmt> copies;
    for (int64_t k = 0; k < n; ++k) {
      Expr value =
          k == 0 ? f->min : arith::const_fold(f->min + make_const(f->min.dtype(), double(k)));
      copies.push_back(substitute(f->body, f->loop_var, value));
    }
    return SeqStmt::make(std::move(copies));
  }

 private:
  int max_extent_;
};

}  // namespace

Stmt unroll_loops(const Stmt& s, int max_extent) {
  return Unroller(max_extent).mutate(s);
}

PrimFunc unroll_loops(PrimFunc f, int max_extent) {
  f.body = unroll_loops(f.body, max_extent);
  return f;
}

}  // namespace ingot::tir
