// Loop-IR expressions: plain immutable structs with checked make() factories (Halide style).
#pragma once

#include <string>
#include <vector>

#include "tir/dtype.h"
#include "tir/node.h"

namespace ingot::tir {

struct ExprNode : Node {
  ExprNode(NodeTag t, DataType d) : Node(t), dtype(d) {}
  const DataType dtype;
};

class Expr : public NodeRef<ExprNode> {
 public:
  using NodeRef::NodeRef;
  DataType dtype() const { return get()->dtype; }
};

struct VarNode;
// A variable; identity is the node object (two Vars named "i" are different variables).
class Var : public Expr {
 public:
  Var() = default;
  explicit Var(std::string name, DataType dtype = DataType::i64());
  const VarNode* node() const;
  const std::string& name() const;
};

class BufferNode;
class Buffer;

enum class Intrinsic : uint8_t {
#define INGOT_X(name, arity) name,
  INGOT_TIR_INTRINSICS(INGOT_X)
#undef INGOT_X
};
const char* intrinsic_name(Intrinsic op);
int intrinsic_arity(Intrinsic op);
// The AMX tile effects (amx_tile_config .. amx_tile_release): statements' values, never folded.
bool is_amx_intrinsic(Intrinsic op);

struct IntImm : ExprNode {
  static constexpr NodeTag kTag = NodeTag::IntImm;
  IntImm(DataType d, int64_t v) : ExprNode(kTag, d), value(v) {}
  int64_t value;
  static Expr make(DataType dtype, int64_t value);
};

struct FloatImm : ExprNode {
  static constexpr NodeTag kTag = NodeTag::FloatImm;
  FloatImm(DataType d, double v) : ExprNode(kTag, d), value(v) {}
  double value;
  static Expr make(DataType dtype, double value);
};

struct VarNode : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Var;
  VarNode(DataType d, std::string n) : ExprNode(kTag, d), name(std::move(n)) {}
  std::string name;
};

// Binary nodes share one shape: a, b. Arithmetic nodes require a.dtype == b.dtype and have
// that dtype; comparison nodes have bool dtype (with a's lanes); And/Or take and give bool.
template <NodeTag Tag>
struct BinaryNode : ExprNode {
  static constexpr NodeTag kTag = Tag;
  BinaryNode(DataType d, Expr x, Expr y) : ExprNode(Tag, d), a(std::move(x)), b(std::move(y)) {}
  Expr a, b;
  static Expr make(Expr a, Expr b);
};
#define INGOT_X(N, op) using N = BinaryNode<NodeTag::N>;
INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X

struct Not : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Not;
  Not(DataType d, Expr x) : ExprNode(kTag, d), a(std::move(x)) {}
  Expr a;
  static Expr make(Expr a);
};

struct Select : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Select;
  Select(DataType d, Expr c, Expr t, Expr f)
      : ExprNode(kTag, d),
        condition(std::move(c)),
        true_value(std::move(t)),
        false_value(std::move(f)) {}
  Expr condition, true_value, false_value;
  static Expr make(Expr condition, Expr true_value, Expr false_value);
};

struct Cast : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Cast;
  Cast(DataType d, Expr v) : ExprNode(kTag, d), value(std::move(v)) {}
  Expr value;
  static Expr make(DataType dtype, Expr value);
};

// A pure math intrinsic applied elementwise; dtype is the (float) argument dtype.
struct Call : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Call;
  Call(DataType d, Intrinsic o, std::vector<Expr> a)
      : ExprNode(kTag, d), op(o), args(std::move(a)) {}
  Intrinsic op;
  std::vector<Expr> args;
  static Expr make(Intrinsic op, std::vector<Expr> args);
};

// buffer[indices...]: one index per buffer dimension (before flattening), or one flat index
// after. A vector load has Ramp indices in the last dimension and a vector dtype.
struct BufferLoad : ExprNode {
  static constexpr NodeTag kTag = NodeTag::BufferLoad;
  BufferLoad(DataType d, std::shared_ptr<const BufferNode> b, std::vector<Expr> i)
      : ExprNode(kTag, d), buffer(std::move(b)), indices(std::move(i)) {}
  std::shared_ptr<const BufferNode> buffer;
  std::vector<Expr> indices;
  static Expr make(const Buffer& buffer, std::vector<Expr> indices);
};

// base, base+stride, ..., base+(lanes-1)*stride.
struct Ramp : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Ramp;
  Ramp(DataType d, Expr b, Expr s, int l)
      : ExprNode(kTag, d), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  Expr base, stride;
  int lanes;
  static Expr make(Expr base, Expr stride, int lanes);
};

struct Broadcast : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Broadcast;
  Broadcast(DataType d, Expr v, int l) : ExprNode(kTag, d), value(std::move(v)), lanes(l) {}
  Expr value;
  int lanes;
  static Expr make(Expr value, int lanes);
};

// Lanes picked from one vector: result[i] = vector[indices[i]] (LLVM's shufflevector); e.g.
// each group's element j broadcast over the group's lanes.
struct Shuffle : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Shuffle;
  Shuffle(DataType d, Expr v, std::vector<int> i)
      : ExprNode(kTag, d), vector(std::move(v)), indices(std::move(i)) {}
  Expr vector;
  std::vector<int> indices;
  static Expr make(Expr vector, std::vector<int> indices);
};

// let var = value in body.
struct Let : ExprNode {
  static constexpr NodeTag kTag = NodeTag::Let;
  Let(DataType d, Var v, Expr val, Expr b)
      : ExprNode(kTag, d), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;
  Expr value, body;
  static Expr make(Var var, Expr value, Expr body);
};

inline const VarNode* Var::node() const {
  return as<VarNode>();
}
inline const std::string& Var::name() const {
  return node()->name;
}

}  // namespace ingot::tir
