// make() factories of every loop-IR node, with their argument checks, and small name tables.
#include <fmt/format.h>

#include "support/error.h"
#include "tir/buffer.h"
#include "tir/expr.h"
#include "tir/stmt.h"

namespace ingot::tir {

std::string DataType::str() const {
  std::string base;
  switch (code) {
    case kInt:
      base = fmt::format("int{}", bits);
      break;
    case kUInt:
      base = fmt::format("uint{}", bits);
      break;
    case kFloat:
      base = fmt::format("float{}", bits);
      break;
    case DataType::kBFloat:
      base = fmt::format("bfloat{}", bits);
      break;
    case kHandle:
      base = "handle";
      break;
    case kBool:
      base = "bool";
      break;
  }
  return lanes == 1 ? base : fmt::format("{}x{}", base, lanes);
}

const char* node_tag_name(NodeTag tag) {
  switch (tag) {
#define INGOT_X(N) \
  case NodeTag::N: \
    return #N;
    INGOT_TIR_EXPR_NODES(INGOT_X) INGOT_TIR_STMT_NODES(INGOT_X)
#undef INGOT_X
  }
  return "?";
}

const char* intrinsic_name(Intrinsic op) {
  switch (op) {
#define INGOT_X(name, arity) \
  case Intrinsic::name:      \
    return #name;
    INGOT_TIR_INTRINSICS(INGOT_X)
#undef INGOT_X
  }
  return "?";
}

int intrinsic_arity(Intrinsic op) {
  switch (op) {
#define INGOT_X(name, arity) \
  case Intrinsic::name:      \
    return arity;
    INGOT_TIR_INTRINSICS(INGOT_X)
#undef INGOT_X
  }
  return 0;
}

bool is_amx_intrinsic(Intrinsic op) {
  switch (op) {
    case Intrinsic::amx_tile_config:
    case Intrinsic::amx_tile_zero:
    case Intrinsic::amx_tile_load:
    case Intrinsic::amx_tile_store:
    case Intrinsic::amx_dot_u8i8:
    case Intrinsic::amx_dot_bf16:
    case Intrinsic::amx_tile_release:
      return true;
    default:
      return false;
  }
}

const char* storage_scope_name(StorageScope s) {
  switch (s) {
    case StorageScope::kGlobal:
      return "global";
    case StorageScope::kWorkspace:
      return "workspace";
    case StorageScope::kLocal:
      return "local";
    case StorageScope::kShared:
      return "shared";
  }
  return "?";
}

const char* for_kind_name(ForKind k) {
  switch (k) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
    case ForKind::kOutlined:
      return "outlined";
    case ForKind::kThreadBinding:
      return "thread_binding";
    case ForKind::kWarpMma:
      return "warp_mma";
    case ForKind::kDoubleBuffered:
      return "double_buffered";
  }
  return "?";
}

Var::Var(std::string name, DataType dtype)
    : Expr(std::make_shared<const VarNode>(dtype, std::move(name))) {}

Expr IntImm::make(DataType dtype, int64_t value) {
  INGOT_ICHECK(dtype.is_scalar() && (dtype.is_integer() || dtype.is_bool()),
               "IntImm needs a scalar integer dtype, got {}", dtype.str());
  return Expr(std::make_shared<const IntImm>(dtype, value));
}

Expr FloatImm::make(DataType dtype, double value) {
  INGOT_ICHECK(dtype.is_scalar() && dtype.is_float(), "FloatImm needs a scalar float dtype, got {}",
               dtype.str());
  return Expr(std::make_shared<const FloatImm>(dtype, value));
}

namespace {
constexpr bool is_compare(NodeTag t) {
  return t == NodeTag::EQ || t == NodeTag::NE || t == NodeTag::LT || t == NodeTag::LE ||
         t == NodeTag::GT || t == NodeTag::GE;
}
constexpr bool is_logical(NodeTag t) {
  return t == NodeTag::And || t == NodeTag::Or;
}
}  // namespace

template <NodeTag Tag>
Expr BinaryNode<Tag>::make(Expr a, Expr b) {
  INGOT_ICHECK(a.defined() && b.defined(), "{} of an undefined operand", node_tag_name(Tag));
  INGOT_ICHECK(a.dtype() == b.dtype(), "{} operands differ in dtype: {} vs {}", node_tag_name(Tag),
               a.dtype().str(), b.dtype().str());
  DataType d = a.dtype();
  if constexpr (is_compare(Tag)) d = DataType::boolean(a.dtype().lanes);
  if constexpr (is_logical(Tag))
    INGOT_ICHECK(d.is_bool(), "{} needs bool operands, got {}", node_tag_name(Tag), d.str());
  if constexpr (Tag == NodeTag::FloorDiv || Tag == NodeTag::FloorMod)
    INGOT_ICHECK(d.is_integer(), "{} needs integer operands, got {}", node_tag_name(Tag), d.str());
  return Expr(std::make_shared<const BinaryNode<Tag>>(d, std::move(a), std::move(b)));
}
#define INGOT_X(N, op) template struct BinaryNode<NodeTag::N>;
INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X

Expr Not::make(Expr a) {
  INGOT_ICHECK(a.defined() && a.dtype().is_bool(), "Not needs a bool operand");
  DataType d = a.dtype();
  return Expr(std::make_shared<const Not>(d, std::move(a)));
}

Expr Select::make(Expr c, Expr t, Expr f) {
  INGOT_ICHECK(c.defined() && t.defined() && f.defined(), "Select of an undefined operand");
  INGOT_ICHECK(c.dtype().is_bool(), "Select condition must be bool, got {}", c.dtype().str());
  INGOT_ICHECK(t.dtype() == f.dtype(), "Select branches differ: {} vs {}", t.dtype().str(),
               f.dtype().str());
  DataType d = t.dtype();
  return Expr(std::make_shared<const Select>(d, std::move(c), std::move(t), std::move(f)));
}

Expr Cast::make(DataType dtype, Expr value) {
  INGOT_ICHECK(value.defined(), "Cast of an undefined value");
  INGOT_ICHECK(dtype.lanes == value.dtype().lanes, "Cast cannot change lanes ({} to {})",
               value.dtype().str(), dtype.str());
  return Expr(std::make_shared<const Cast>(dtype, std::move(value)));
}

Expr Call::make(Intrinsic op, std::vector<Expr> args) {
  INGOT_ICHECK(int(args.size()) == intrinsic_arity(op), "{} takes {} arguments, got {}",
               intrinsic_name(op), intrinsic_arity(op), args.size());
  // prefetch(load): asks the cache for the element `load` addresses, reading nothing; its value
  // is 0 (an Evaluate statement's). The load is a scalar of any dtype.
  if (op == Intrinsic::prefetch) {
    INGOT_ICHECK(args[0].defined() && args[0].as<BufferLoad>() && args[0].dtype().lanes == 1,
                 "prefetch takes one scalar buffer load");
    DataType d = args[0].dtype();
    return Expr(std::make_shared<const Call>(d, op, std::move(args)));
  }
  // dot_i32(acc, a, b): acc int32 x L; a and b integer vectors of L * G lanes (G = 2 or 4) of
  // 8 or 16 bits each: lane l of the result is acc[l] + sum over t < G of
  // a[l * G + t] * b[l * G + t], each widened by its own signedness, in int32 (VPDPBUSD with
  // uint8 a and int8 b, G = 4; VPMADDWD plus an add with int16 a and b, G = 2; codegen/llvm).
  if (op == Intrinsic::dot_i32) {
    const DataType acc = args[0].defined() ? args[0].dtype() : DataType();
    bool ok = acc.is_int() && acc.bits == 32 && acc.lanes > 1;
    for (int i = 1; ok && i < 3; ++i) {
      const DataType d = args[i].defined() ? args[i].dtype() : DataType();
      const int g = acc.lanes > 0 ? d.lanes / acc.lanes : 0;
      ok = d.is_integer() && (d.bits == 8 || d.bits == 16) && d.lanes == g * acc.lanes &&
           (g == 2 || g == 4) && d.lanes == args[1].dtype().lanes;
    }
    INGOT_ICHECK(ok,
                 "dot_i32 takes an int32 vector and two 8/16-bit vectors of 2 or 4 times its "
                 "lanes, got {}, {}, {}",
                 args[0].dtype().str(), args[1].dtype().str(), args[2].dtype().str());
    return Expr(std::make_shared<const Call>(acc, op, std::move(args)));
  }
  // dot_bf16(acc, a, b): acc float32 x L; a and b bfloat16 vectors of 2L lanes: lane l of the
  // result is acc[l] + a[2l] * b[2l] + a[2l + 1] * b[2l + 1] in float32 (VDPBF16PS where the
  // target has AVX512-BF16; codegen/llvm/bf16_dot.cpp).
  if (op == Intrinsic::dot_bf16) {
    const DataType acc = args[0].defined() ? args[0].dtype() : DataType();
    bool ok = acc.is_float() && !acc.is_bfloat16() && acc.bits == 32 && acc.lanes > 1;
    for (int i = 1; ok && i < 3; ++i)
      ok = args[i].defined() && args[i].dtype() == DataType::bf16(2 * acc.lanes);
    INGOT_ICHECK(ok,
                 "dot_bf16 takes a float32 vector and two bfloat16 vectors of twice its lanes, "
                 "got {}, {}, {}",
                 args[0].dtype().str(), args[1].dtype().str(), args[2].dtype().str());
    return Expr(std::make_shared<const Call>(acc, op, std::move(args)));
  }
  // The AMX tile effects, each an int32 0 (an Evaluate statement's value); tiles are the eight
  // tile registers 0..7, constant integers:
  // - amx_tile_config(rows0, colsb0, .. rows7, colsb7): every tile's shape (rows 0..16, bytes per
  //   row 0..64, multiples of 4; 0 x 0 unused); tiles read or written after it have it
  //   (LDTILECFG, which zeroes them);
  // - amx_tile_zero(t);
  // - amx_tile_load(t, first, second) / amx_tile_store(t, first, second): the tile's rows from
  //   or to memory, row r at the address of scalar load `first` plus r times the bytes from it
  //   to scalar load `second` (the next row's first element), each row the tile's bytes
  //   (TILELOADD / TILESTORED); the loads name addresses only;
  // - amx_dot_u8i8(c, a, b): c[m][n] += sum over k, g < 4 of uint8 a[m][4k + g] *
  //   int8 b[k][4n + g] in int32 (TDPBUSD); amx_dot_bf16(c, a, b): float32 c[m][n] +=
  //   a[m][2k] * b[k][2n] + a[m][2k + 1] * b[k][2n + 1] of bfloat16 pairs (TDPBF16PS);
  // - amx_tile_release(): the tile state released (TILERELEASE).
  if (is_amx_intrinsic(op)) {
    const bool memory = op == Intrinsic::amx_tile_load || op == Intrinsic::amx_tile_store;
    bool ok = true;
    for (size_t i = 0; i < args.size(); ++i) {
      const bool address = memory && i > 0;
      ok = ok && args[i].defined() && args[i].dtype().lanes == 1 &&
           (address ? args[i].as<BufferLoad>() != nullptr : args[i].as<IntImm>() != nullptr);
      if (ok && !address) {
        const int64_t v = args[i].as<IntImm>()->value;
        const bool shape = op == Intrinsic::amx_tile_config;
        ok = shape ? v >= 0 && v <= (i % 2 == 0 ? 16 : 64) && (i % 2 == 0 || v % 4 == 0)
                   : v >= 0 && v < 8;
      }
    }
    if (memory && ok)
      ok = args[1].as<BufferLoad>()->buffer.get() == args[2].as<BufferLoad>()->buffer.get();
    INGOT_ICHECK(ok, "{}: bad operands (tiles 0..7, shapes, or two loads of one buffer)",
                 intrinsic_name(op));
    return Expr(std::make_shared<const Call>(DataType::i32(), op, std::move(args)));
  }
  // warp_shuffle_down(value, lanes): the value of the lane `lanes` above in the warp (GPU only).
  const bool shuffle = op == Intrinsic::warp_shuffle_down;
  for (size_t i = 0; i < args.size(); ++i) {
    bool ok = args[i].defined() &&
              (shuffle && i == 1 ? args[i].dtype().is_int() : args[i].dtype() == args[0].dtype());
    INGOT_ICHECK(ok, "{} arguments must share a dtype", intrinsic_name(op));
  }
  INGOT_ICHECK(args[0].dtype().is_float(), "{} needs float arguments, got {}", intrinsic_name(op),
               args[0].dtype().str());
  DataType d = args[0].dtype();
  return Expr(std::make_shared<const Call>(d, op, std::move(args)));
}

Expr BufferLoad::make(const Buffer& buffer, std::vector<Expr> indices) {
  INGOT_ICHECK(buffer.defined(), "load from an undefined buffer");
  int lanes = 1;
  for (auto& i : indices) {
    INGOT_ICHECK(i.defined() && i.dtype().is_integer(), "index into {} must be an integer",
                 buffer->name);
    lanes = std::max<int>(lanes, i.dtype().lanes);
  }
  return Expr(std::make_shared<const BufferLoad>(buffer->dtype.with_lanes(lanes), buffer.ptr(),
                                                 std::move(indices)));
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
  INGOT_ICHECK(base.defined() && stride.defined() && base.dtype() == stride.dtype() &&
                   base.dtype().is_scalar() && base.dtype().is_integer(),
               "Ramp needs scalar integer base and stride of one dtype");
  INGOT_ICHECK(lanes > 1, "Ramp needs lanes > 1, got {}", lanes);
  DataType d = base.dtype().with_lanes(lanes);
  return Expr(std::make_shared<const Ramp>(d, std::move(base), std::move(stride), lanes));
}

Expr Shuffle::make(Expr vector, std::vector<int> indices) {
  INGOT_ICHECK(vector.defined() && !vector.dtype().is_scalar(), "Shuffle needs a vector");
  INGOT_ICHECK(indices.size() > 1, "Shuffle needs more than one index, got {}", indices.size());
  for (int i : indices)
    INGOT_ICHECK(i >= 0 && i < vector.dtype().lanes, "Shuffle index {} outside {} lanes", i,
                 vector.dtype().lanes);
  DataType d = vector.dtype().with_lanes(int(indices.size()));
  return Expr(std::make_shared<const Shuffle>(d, std::move(vector), std::move(indices)));
}

Expr Broadcast::make(Expr value, int lanes) {
  INGOT_ICHECK(value.defined() && value.dtype().is_scalar(), "Broadcast needs a scalar value");
  INGOT_ICHECK(lanes > 1, "Broadcast needs lanes > 1, got {}", lanes);
  DataType d = value.dtype().with_lanes(lanes);
  return Expr(std::make_shared<const Broadcast>(d, std::move(value), lanes));
}

Expr Let::make(Var var, Expr value, Expr body) {
  INGOT_ICHECK(var.defined() && value.defined() && body.defined(), "Let with undefined parts");
  INGOT_ICHECK(var.dtype() == value.dtype(), "Let {}: variable is {}, value is {}", var.name(),
               var.dtype().str(), value.dtype().str());
  DataType d = body.dtype();
  return Expr(std::make_shared<const Let>(d, std::move(var), std::move(value), std::move(body)));
}

Buffer Buffer::make(std::string name, DataType dtype, std::vector<Expr> shape, StorageScope scope,
                    std::vector<Expr> strides, int alignment) {
  INGOT_ICHECK(dtype.is_scalar(), "buffer {} element type must be scalar", name);
  INGOT_ICHECK(strides.empty() || strides.size() == shape.size(),
               "buffer {}: {} strides for {} dims", name, strides.size(), shape.size());
  auto n = std::make_shared<BufferNode>();
  n->data = Var(name + "_data", DataType::handle());
  n->name = std::move(name);
  n->dtype = dtype;
  n->shape = std::move(shape);
  n->strides = std::move(strides);
  n->scope = scope;
  n->alignment = alignment;
  return Buffer(std::move(n));
}

Buffer Buffer::make(std::string name, DataType dtype, const std::vector<int64_t>& shape,
                    StorageScope scope) {
  std::vector<Expr> s;
  for (int64_t d : shape) s.push_back(IntImm::make(DataType::i64(), d));
  return make(std::move(name), dtype, std::move(s), scope);
}

Expr Buffer::load(std::vector<Expr> indices) const {
  return BufferLoad::make(*this, std::move(indices));
}

Stmt For::make(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body,
               std::string thread_tag) {
  INGOT_ICHECK(loop_var.defined() && min.defined() && extent.defined() && body.defined(),
               "For with undefined parts");
  INGOT_ICHECK(min.dtype() == loop_var.dtype() && extent.dtype() == loop_var.dtype(),
               "For {}: min/extent dtype must match the loop variable", loop_var.name());
  INGOT_ICHECK((kind == ForKind::kThreadBinding) == !thread_tag.empty(),
               "For {}: a thread tag goes with thread binding and only with it", loop_var.name());
  return Stmt(std::make_shared<const For>(std::move(loop_var), std::move(min), std::move(extent),
                                          kind, std::move(body), std::move(thread_tag)));
}

Stmt BufferStore::make(const Buffer& buffer, Expr value, std::vector<Expr> indices) {
  INGOT_ICHECK(buffer.defined() && value.defined(), "store with undefined parts");
  INGOT_ICHECK(value.dtype().element_of() == buffer->dtype, "store into {} ({}) of a {} value",
               buffer->name, buffer->dtype.str(), value.dtype().str());
  for (auto& i : indices)
    INGOT_ICHECK(i.defined() && i.dtype().is_integer(), "index into {} must be an integer",
                 buffer->name);
  return Stmt(
      std::make_shared<const BufferStore>(buffer.ptr(), std::move(value), std::move(indices)));
}

Stmt SeqStmt::make(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (auto& s : seq) {
    if (!s.defined()) continue;
    if (auto* inner = s.as<SeqStmt>()) {
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  INGOT_ICHECK(!flat.empty(), "empty SeqStmt");
  if (flat.size() == 1) return flat[0];
  return Stmt(std::make_shared<const SeqStmt>(std::move(flat)));
}

Stmt IfThenElse::make(Expr condition, Stmt then_case, Stmt else_case) {
  INGOT_ICHECK(condition.defined() && condition.dtype() == DataType::boolean(),
               "if condition must be a scalar bool");
  INGOT_ICHECK(then_case.defined(), "if without a then branch");
  return Stmt(std::make_shared<const IfThenElse>(std::move(condition), std::move(then_case),
                                                 std::move(else_case)));
}

Stmt LetStmt::make(Var var, Expr value, Stmt body) {
  INGOT_ICHECK(var.defined() && value.defined() && body.defined(), "LetStmt with undefined parts");
  INGOT_ICHECK(var.dtype() == value.dtype(), "LetStmt {}: variable is {}, value is {}", var.name(),
               var.dtype().str(), value.dtype().str());
  return Stmt(std::make_shared<const LetStmt>(std::move(var), std::move(value), std::move(body)));
}

Stmt Allocate::make(const Buffer& buffer, Stmt body) {
  INGOT_ICHECK(buffer.defined() && body.defined(), "Allocate with undefined parts");
  INGOT_ICHECK(buffer->scope == StorageScope::kLocal || buffer->scope == StorageScope::kShared,
               "Allocate of {} buffer {}", storage_scope_name(buffer->scope), buffer->name);
  return Stmt(std::make_shared<const Allocate>(buffer.ptr(), std::move(body)));
}

Stmt Evaluate::make(Expr value) {
  INGOT_ICHECK(value.defined(), "Evaluate of an undefined value");
  return Stmt(std::make_shared<const Evaluate>(std::move(value)));
}

}  // namespace ingot::tir

namespace ingot::tir {

const char* iter_kind_name(IterKind k) {
  return k == IterKind::kSpatial ? "spatial" : "reduce";
}

Stmt Block::make(std::string name_hint, std::vector<IterVar> iter_vars,
                 std::vector<BufferRegion> reads, std::vector<BufferRegion> writes, Stmt body,
                 Stmt init, std::vector<Buffer> alloc_buffers,
                 std::map<std::string, std::string> annotations) {
  INGOT_ICHECK(body.defined(), "block {} has no body", name_hint);
  for (const IterVar& iv : iter_vars) {
    INGOT_ICHECK(iv.var.defined() && iv.min.defined() && iv.extent.defined(),
                 "block {}: iter var with undefined parts", name_hint);
    INGOT_ICHECK(iv.min.dtype() == iv.var.dtype() && iv.extent.dtype() == iv.var.dtype(),
                 "block {}: iter var {} min/extent dtype must match it", name_hint, iv.var.name());
  }
  for (const auto* regions : {&reads, &writes}) {
    for (const BufferRegion& r : *regions) {
      INGOT_ICHECK(r.buffer.defined() && int(r.region.size()) == r.buffer.ndim(),
                   "block {}: region of {} needs one range per dimension", name_hint,
                   r.buffer.defined() ? r.buffer->name : "?");
    }
  }
  auto n = std::make_shared<Block>();
  n->name_hint = std::move(name_hint);
  n->iter_vars = std::move(iter_vars);
  n->reads = std::move(reads);
  n->writes = std::move(writes);
  n->init = std::move(init);
  n->body = std::move(body);
  n->alloc_buffers = std::move(alloc_buffers);
  n->annotations = std::move(annotations);
  return Stmt(std::move(n));
}

Stmt BlockRealize::make(std::vector<Expr> iter_values, Expr predicate, Stmt block) {
  auto* b = block.as<Block>();
  INGOT_ICHECK(b != nullptr, "BlockRealize of a non-block");
  INGOT_ICHECK(iter_values.size() == b->iter_vars.size(),
               "block {}: {} iter values for {} iter vars", b->name_hint, iter_values.size(),
               b->iter_vars.size());
  for (size_t i = 0; i < iter_values.size(); ++i) {
    INGOT_ICHECK(iter_values[i].defined() && iter_values[i].dtype() == b->iter_vars[i].var.dtype(),
                 "block {}: binding of {} has the wrong dtype", b->name_hint,
                 b->iter_vars[i].var.name());
  }
  INGOT_ICHECK(predicate.defined() && predicate.dtype() == DataType::boolean(),
               "block {}: predicate must be a scalar bool", b->name_hint);
  return Stmt(std::make_shared<const BlockRealize>(std::move(iter_values), std::move(predicate),
                                                   std::move(block)));
}

}  // namespace ingot::tir
