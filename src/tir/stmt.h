// Loop-IR statements: plain immutable structs with checked make() factories.
#pragma once

#include <map>
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
  kParallel,       // iterations run on the runtime thread pool
  kVectorized,     // the body becomes vector code; extent must be constant
  kUnrolled,       // fully unrolled; extent must be constant
  kOutlined,       // serial, compiled as a function of its own that is never inlined, so its
                   // constants and registers stay apart from the loops around it
  kThreadBinding,  // GPU: bound to thread_tag (blockIdx.x, threadIdx.x, ...)
  // GPU: serial; with the two loops inside it, one lane's share of a warp's m16n8k16 product
  // (schedule/primitives/warp_mma.cpp), which CUDA runs as one mma.sync per lane.
  kWarpMma,
  // GPU: serial; the shared-memory copies that open its body run one iteration ahead into a
  // second buffer (schedule/primitives/double_buffer.cpp, tir/transforms/double_buffer.h).
  kDoubleBuffered
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

// --- Block-based IR (TVM TensorIR) ---------------------------------------------------------

// A block iteration variable: spatial (each value is an independent output point) or reduce
// (values are combined into the same output), over [min, min + extent).
enum class IterKind : uint8_t { kSpatial, kReduce };
const char* iter_kind_name(IterKind k);

struct IterVar {
  Var var;
  Expr min, extent;
  IterKind kind = IterKind::kSpatial;
};

// [min, min + extent) along one dimension.
struct Range {
  Expr min, extent;
};

// The part of a buffer a block reads or writes, one Range per dimension.
struct BufferRegion {
  Buffer buffer;
  std::vector<Range> region;
};

// A unit of computation with its own iteration domain: iter_vars are bound by the enclosing
// BlockRealize; reads/writes state the buffer regions it touches (in terms of its iter vars);
// init (optional) runs before the first reduction step of each spatial point; alloc_buffers are
// allocated for the block's duration.
struct Block : StmtNode {
  static constexpr NodeTag kTag = NodeTag::Block;
  Block() : StmtNode(kTag) {}
  std::string name_hint;
  std::vector<IterVar> iter_vars;
  std::vector<BufferRegion> reads, writes;
  Stmt init;  // may be undefined
  Stmt body;
  std::vector<Buffer> alloc_buffers;
  std::map<std::string, std::string> annotations;
  static Stmt make(std::string name_hint, std::vector<IterVar> iter_vars,
                   std::vector<BufferRegion> reads, std::vector<BufferRegion> writes, Stmt body,
                   Stmt init = Stmt(), std::vector<Buffer> alloc_buffers = {},
                   std::map<std::string, std::string> annotations = {});
};

// Runs `block` (a Block) with its iter vars bound to iter_values, when predicate holds.
struct BlockRealize : StmtNode {
  static constexpr NodeTag kTag = NodeTag::BlockRealize;
  BlockRealize(std::vector<Expr> v, Expr p, Stmt b)
      : StmtNode(kTag), iter_values(std::move(v)), predicate(std::move(p)), block(std::move(b)) {}
  std::vector<Expr> iter_values;
  Expr predicate;  // scalar bool
  Stmt block;      // always a Block
  const Block* block_node() const { return block.as<Block>(); }
  static Stmt make(std::vector<Expr> iter_values, Expr predicate, Stmt block);
};

}  // namespace ingot::tir
