// substitute(): an IRMutator that replaces variable uses found in the map.
#include "tir/substitute.h"

#include "support/error.h"
#include "tir/mutator.h"

namespace ingot::tir {
namespace {

class Substituter : public IRMutator {
 public:
  explicit Substituter(const VarMap& m) : vmap_(m) {}
  Expr visit_Var(const VarNode* op, const Expr& e) override {
    auto it = vmap_.find(op);
    if (it == vmap_.end()) return e;
    INGOT_ICHECK(it->second.dtype() == op->dtype, "substitute {}: {} replaced by a {} value",
                 op->name, op->dtype.str(), it->second.dtype().str());
    return it->second;
  }

 private:
  const VarMap& vmap_;
};

}  // namespace

Expr substitute(const Expr& e, const VarMap& vmap) {
  return vmap.empty() ? e : Substituter(vmap).mutate(e);
}
Stmt substitute(const Stmt& s, const VarMap& vmap) {
  return vmap.empty() ? s : Substituter(vmap).mutate(s);
}
Expr substitute(const Expr& e, const Var& var, const Expr& value) {
  return substitute(e, VarMap{{var.node(), value}});
}
Stmt substitute(const Stmt& s, const Var& var, const Expr& value) {
  return substitute(s, VarMap{{var.node(), value}});
}

}  // namespace ingot::tir
