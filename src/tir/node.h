// Loop-IR node base: the tag enum generated from node_list.def, and the ref-counted handle
// types Expr and Stmt with tag-checked down-casts (no RTTI).
#pragma once

#include <cstdint>
#include <memory>

#include "tir/node_list.def"

namespace ingot::tir {

enum class NodeTag : uint8_t {
#define INGOT_X(N) N,
  INGOT_TIR_EXPR_NODES(INGOT_X) INGOT_TIR_STMT_NODES(INGOT_X)
#undef INGOT_X
};

const char* node_tag_name(NodeTag tag);

struct Node {
  explicit Node(NodeTag t) : tag(t) {}
  const NodeTag tag;
};

// A shared, immutable node handle. T is ExprNode or StmtNode.
template <typename T>
class NodeRef {
 public:
  NodeRef() = default;
  NodeRef(std::shared_ptr<const T> p) : p_(std::move(p)) {}  // NOLINT: implicit by design
  // static_cast, not `p_ != nullptr`: the latter's `!` finds tir::operator!(Expr) by ADL.
  bool defined() const { return static_cast<bool>(p_); }
  const T* get() const { return p_.get(); }
  const T* operator->() const { return p_.get(); }
  const T& operator*() const { return *p_; }
  NodeTag tag() const { return p_->tag; }
  // Down-cast by tag: nullptr when this is not a U.
  template <typename U>
  const U* as() const {
    return p_ && p_->tag == U::kTag ? static_cast<const U*>(p_.get()) : nullptr;
  }
  // Identity (same node object), not structural equality; see structural_equal.h.
  bool same_as(const NodeRef& o) const { return p_ == o.p_; }
  const std::shared_ptr<const T>& ptr() const { return p_; }

 private:
  std::shared_ptr<const T> p_;
};

}  // namespace ingot::tir
