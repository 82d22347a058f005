// Loop-IR statements: plain immutable structs with checked make() factories.
#pragma once

#include <string>
#include <vector>

#include "tir/buffer.h"
#include "tir/expr.h"

namespace ingot::tir {

struct StmtNode : Node {
  explicit StmtNode(NodeTag t) : Node(t) {}
};

class Stmt : public NodeRef<StmtNode> {
 public:
  using NodeRef::NodeRef;
};

enum class ForKind : uint8_t {
  kSerial,
  kParallel,      // iterations run on the runtime thread pool
  kVectorized,    // the body becomes vector code; extent must be constant
  kUnrolled,      // fully unrolled; extent must be constant
  kThreadBinding  // GPU: bound to thread_tag (blockIdx.x, threadIdx.x, ...)
};
const char* for_kind_name(ForKind k);

struct For : StmtNode {
  static constexpr NodeTag kTag = NodeTag::For;
  For(Var v, Expr m, Expr e, ForKind k, Stmt b, std::string t)
      : StmtNode(kTag),
        loop_var(std::move(v)),
        min(std::move(m)),
        extent(std::move(e)),
        kind(k),
        body(std::move(b)),
        thread_tag(std::move(t)) {}
  Var loop_var;
  Expr min, extent;
  ForKind kind;
  Stmt body;
  std::string thread_tag;  // only for kThreadBinding
  static Stmt make(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body,
                   std::string thread_tag = "");
};

// buffer[indices...] = value
struct BufferStore : StmtNode {
  static constexpr NodeTag kTag = NodeTag::BufferStore;
  BufferStore(std::shared_ptr<const BufferNode> b, Expr v, std::vector<Expr> i)
      : StmtNode(kTag), buffer(std::move(b)), value(std::move(v)), indices(std::move(i)) {}
  std::shared_ptr<const BufferNode> buffer;
  Expr value;
  std::vector<Expr> indices;
  static Stmt make(const Buffer& buffer, Expr value, std::vector<Expr> indices);
};

struct SeqStmt : StmtNode {
  static constexpr NodeTag kTag = NodeTag::SeqStmt;
  explicit SeqStmt(std::vector<Stmt> s) : StmtNode(kTag), seq(std::move(s)) {}
  std::vector<Stmt> seq;
  // Flattens nested SeqStmts; a single statement is returned as is.
  static Stmt make(std::vector<Stmt> seq);
};

struct IfThenElse : StmtNode {
  static constexpr NodeTag kTag = NodeTag::IfThenElse;
  IfThenElse(Expr c, Stmt t, Stmt e)
      : StmtNode(kTag), condition(std::move(c)), then_case(std::move(t)), else_case(std::move(e)) {}
  Expr condition;
  Stmt then_case;
  Stmt else_case;  // may be undefined
  static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

struct LetStmt : StmtNode {
  static constexpr NodeTag kTag = NodeTag::LetStmt;
  LetStmt(Var v, Expr val, Stmt b)
      : StmtNode(kTag), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;
  Expr value;
  Stmt body;
  static Stmt make(Var var, Expr value, Stmt body);
};

// Allocates `buffer` (scope local or shared, constant shape) for the duration of body.
struct Allocate : StmtNode {
  static constexpr NodeTag kTag = NodeTag::Allocate;
  Allocate(std::shared_ptr<const BufferNode> b, Stmt s)
      : StmtNode(kTag), buffer(std::move(b)), body(std::move(s)) {}
  std::shared_ptr<const BufferNode> buffer;
  Stmt body;
  static Stmt make(const Buffer& buffer, Stmt body);
};

struct Evaluate : StmtNode {
  static constexpr NodeTag kTag = NodeTag::Evaluate;
  explicit Evaluate(Expr v) : StmtNode(kTag), value(std::move(v)) {}
  Expr value;
  static Stmt make(Expr value);
};

}  // namespace ingot::tir
