// Loop-IR buffers: a typed, shaped view of memory with a scope. Identity is the node object.
#pragma once

#include <string>
#include <vector>

#include "tir/expr.h"

namespace ingot::tir {

enum class StorageScope : uint8_t {
  kGlobal,     // a kernel parameter: model input/output, constant or workspace slice
  kWorkspace,  // planned into the session workspace arena
  kLocal,      // per-thread scratch (stack / registers)
  kShared,     // GPU shared memory
};
const char* storage_scope_name(StorageScope s);

class BufferNode {
 public:
  std::string name;
  DataType dtype;             // element type (scalar)
  std::vector<Expr> shape;    // int64 expressions, constants after shape binding
  std::vector<Expr> strides;  // empty = dense row-major
  StorageScope scope = StorageScope::kGlobal;
  int alignment = 64;  // bytes
  Var data;            // the handle variable codegen binds to the base pointer
};

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(std::shared_ptr<const BufferNode> p) : p_(std::move(p)) {}
  static Buffer make(std::string name, DataType dtype, std::vector<Expr> shape,
                     StorageScope scope = StorageScope::kGlobal, std::vector<Expr> strides = {},
                     int alignment = 64);
  // Convenience: constant shape.
  static Buffer make(std::string name, DataType dtype, const std::vector<int64_t>& shape,
                     StorageScope scope = StorageScope::kGlobal);
  bool defined() const { return p_ != nullptr; }
  const BufferNode* get() const { return p_.get(); }
  const BufferNode* operator->() const { return p_.get(); }
  const std::shared_ptr<const BufferNode>& ptr() const { return p_; }
  bool same_as(const Buffer& o) const { return p_ == o.p_; }
  int ndim() const { return int(p_->shape.size()); }
  // Load/store helpers: buf(i, j) builds a BufferLoad.
  Expr load(std::vector<Expr> indices) const;
  template <typename... I>
  Expr operator()(I... idx) const {
    return load({Expr(idx)...});
  }

 private:
  std::shared_ptr<const BufferNode> p_;
};

}  // namespace ingot::tir
