// The arithmetic analyzer: known variable ranges, an interval analysis (bound_of), a prover for
// integer comparisons and the rewrite-rule simplifier. Index arithmetic is assumed not to
// overflow (as in TVM/Halide); constant folding itself respects each dtype's wraparound.
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>

#include "tir/expr.h"

namespace ingot::tir::arith {

// Inclusive integer interval; kNegInf / kPosInf stand for "unbounded".
struct ConstIntBound {
  static constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
  int64_t min_value = kNegInf;
  int64_t max_value = kPosInf;
  bool is_point() const {
    return min_value == max_value && min_value != kNegInf && min_value != kPosInf;
  }
  friend bool operator==(const ConstIntBound&, const ConstIntBound&) = default;
};

class Analyzer {
 public:
  // v takes the values [min, min + extent).
  void bind(const Var& v, const Expr& min, const Expr& extent);
  void bind(const Var& v, ConstIntBound bound);
  // The bound given to v, or nullptr.
  const ConstIntBound* var_bound(const VarNode* v) const;

  // Interval of an integer (or bool) expression; the dtype's full range when unknown.
  ConstIntBound bound_of(const Expr& e) const;
  // True only when cond (a bool expression) is proven to hold for every value of the vars.
  bool can_prove(const Expr& cond) const;
  Expr simplify(const Expr& e) const;

 private:
  std::unordered_map<const VarNode*, ConstIntBound> bounds_;
};

Expr simplify(const Expr& e, const Analyzer& analyzer);
Expr simplify(const Expr& e);  // no variable ranges known

// The full value range of an integer or bool dtype (floats: unbounded).
ConstIntBound dtype_bound(DataType dtype);

}  // namespace ingot::tir::arith
