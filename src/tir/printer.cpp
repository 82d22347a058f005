// The loop-IR printer: expressions with minimal parentheses, statements indented by two spaces.
#include "tir/printer.h"

#include <fmt/format.h>

#include <unordered_map>

#include "tir/arith/analyzer.h"
#include "tir/functor.h"
#include "tir/op.h"

namespace ingot::tir {
namespace {

// Binding strength: a child binding less tightly than its parent gets parentheses.
enum Prec : int { kOr = 1, kAnd, kNot, kCmp, kAddSub, kMulDiv, kUnary, kAtom };

template <NodeTag Tag>
constexpr int binary_prec() {
  switch (Tag) {
    case NodeTag::Or:
      return kOr;
    case NodeTag::And:
      return kAnd;
    case NodeTag::EQ:
    case NodeTag::NE:
    case NodeTag::LT:
    case NodeTag::LE:
    case NodeTag::GT:
    case NodeTag::GE:
      return kCmp;
    case NodeTag::Add:
    case NodeTag::Sub:
      return kAddSub;
    case NodeTag::Min:
    case NodeTag::Max:
      return kAtom;  // printed as calls
    default:
      return kMulDiv;
  }
}

std::string float_text(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eni") == std::string::npos) s += ".0";
  return s;
}

class Printer : public ExprFunctor<std::string(const Expr&, int*)>,
                public StmtFunctor<void(const Stmt&, int)> {
 public:
  std::string out;

  std::string expr(const Expr& e) {
    int prec = kAtom;
    return visit_expr(e, &prec);
  }
  // e as an operand of an operator of precedence `parent`; `strict` for right operands.
  std::string operand(const Expr& e, int parent, bool strict) {
    int prec = kAtom;
    std::string s = visit_expr(e, &prec);
    return (prec < parent || (strict && prec == parent)) ? "(" + s + ")" : s;
  }

  std::string name_of(const VarNode* v) { return unique(v, v->name); }
  std::string name_of(const BufferNode* b) { return unique(b, b->name); }

  std::string buffer_type(const BufferNode* b) {
    std::string s = b->dtype.str() + "[";
    for (size_t i = 0; i < b->shape.size(); ++i) s += (i ? ", " : "") + expr(b->shape[i]);
    s += "]";
    if (!b->strides.empty()) {
      s += " strides(";
      for (size_t i = 0; i < b->strides.size(); ++i) s += (i ? ", " : "") + expr(b->strides[i]);
      s += ")";
    }
    return s;
  }

  void func(const PrimFunc& f) {
    std::string params;
    for (const Buffer& b : f.params)
      params += (params.empty() ? "" : ", ") + name_of(b.get()) + ": " + buffer_type(b.get());
    out += fmt::format("def {}({}):\n", f.name, params);
    if (f.body.defined()) visit_stmt(f.body, 1);
  }

  // --- expressions ---
  std::string visit_IntImm(const IntImm* op, const Expr&, int*) override {
    if (op->dtype.is_bool()) return op->value ? "True" : "False";
    if (op->dtype == DataType::i64()) return std::to_string(op->value);
    return fmt::format("{}({})", op->dtype.str(), op->value);
  }
  std::string visit_FloatImm(const FloatImm* op, const Expr&, int*) override {
    if (op->dtype == DataType::f32()) return float_text(op->value);
    return fmt::format("{}({})", op->dtype.str(), float_text(op->value));
  }
  std::string visit_Var(const VarNode* op, const Expr&, int*) override { return name_of(op); }

#define INGOT_X(N, sym)                                                              \
  std::string visit_##N(const N* op, const Expr&, int* prec) override {              \
    constexpr int p = binary_prec<NodeTag::N>();                                     \
    if (p == kAtom) return fmt::format("{}({}, {})", sym, expr(op->a), expr(op->b)); \
    *prec = p;                                                                       \
    return operand(op->a, p, p == kCmp) + " " + sym + " " + operand(op->b, p, true); \
  }
  INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X

  std::string visit_Not(const Not* op, const Expr&, int* prec) override {
    *prec = kNot;
    return "!" + operand(op->a, kUnary, false);
  }
  std::string visit_Select(const Select* op, const Expr&, int*) override {
    return fmt::format("select({}, {}, {})", expr(op->condition), expr(op->true_value),
                       expr(op->false_value));
  }
  std::string visit_Cast(const Cast* op, const Expr&, int*) override {
    return fmt::format("{}({})", op->dtype.str(), expr(op->value));
  }
  std::string visit_Call(const Call* op, const Expr&, int*) override {
    std::string args;
    for (const Expr& a : op->args) args += (args.empty() ? "" : ", ") + expr(a);
    return fmt::format("{}({})", intrinsic_name(op->op), args);
  }
  std::string visit_BufferLoad(const BufferLoad* op, const Expr&, int*) override {
    return name_of(op->buffer.get()) + "[" + index_list(op->indices) + "]";
  }
  std::string visit_Ramp(const Ramp* op, const Expr&, int*) override {
    return fmt::format("ramp({}, {}, {})", expr(op->base), expr(op->stride), op->lanes);
  }
  std::string visit_Broadcast(const Broadcast* op, const Expr&, int*) override {
    return fmt::format("broadcast({}, {})", expr(op->value), op->lanes);
  }
  std::string visit_Shuffle(const Shuffle* op, const Expr&, int*) override {
    return fmt::format("shuffle({}, [{}])", expr(op->vector), fmt::join(op->indices, ", "));
  }
  std::string visit_Let(const Let* op, const Expr&, int*) override {
    return fmt::format("(let {} = {} in {})", name_of(op->var.node()), expr(op->value),
                       expr(op->body));
  }

  // --- statements ---
  void line(int indent, const std::string& text) {
    out.append(size_t(indent) * 2, ' ');
    out += text;
    out += '\n';
  }
  void visit_For(const For* op, const Stmt&, int ind) override {
    const char* kind = op->kind == ForKind::kSerial ? "range" : for_kind_name(op->kind);
    std::string tag = op->thread_tag.empty() ? "" : fmt::format(", \"{}\"", op->thread_tag);
    line(ind, fmt::format("for {} in {}({}, {}{}):", name_of(op->loop_var.node()), kind,
                          expr(op->min), expr(op->extent), tag));
    visit_stmt(op->body, ind + 1);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt&, int ind) override {
    line(ind, fmt::format("{}[{}] = {}", name_of(op->buffer.get()), index_list(op->indices),
                          expr(op->value)));
  }
  void visit_SeqStmt(const SeqStmt* op, const Stmt&, int ind) override {
    for (const Stmt& s : op->seq) visit_stmt(s, ind);
  }
  void visit_IfThenElse(const IfThenElse* op, const Stmt&, int ind) override {
    line(ind, "if " + expr(op->condition) + ":");
    visit_stmt(op->then_case, ind + 1);
    if (op->else_case.defined()) {
      line(ind, "else:");
      visit_stmt(op->else_case, ind + 1);
    }
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&, int ind) override {
    line(ind, fmt::format("{} = {}", name_of(op->var.node()), expr(op->value)));
    visit_stmt(op->body, ind);
  }
  void visit_Allocate(const Allocate* op, const Stmt&, int ind) override {
    line(ind, fmt::format("{} = allocate({}, \"{}\")", name_of(op->buffer.get()),
                          buffer_type(op->buffer.get()), storage_scope_name(op->buffer->scope)));
    visit_stmt(op->body, ind);
  }
  void visit_Evaluate(const Evaluate* op, const Stmt&, int ind) override {
    line(ind, expr(op->value));
  }
  void visit_BlockRealize(const BlockRealize* op, const Stmt&, int ind) override {
    block(op->block_node(), &op->iter_values, op->predicate, ind);
  }
  void visit_Block(const Block* op, const Stmt&, int ind) override {
    block(op, nullptr, Expr(), ind);
  }
  // with block("C"):
  //   vi = spatial(0, 64, i)   (min, extent, binding; the binding only under a BlockRealize)
  void block(const Block* op, const std::vector<Expr>* values, const Expr& pred, int ind) {
    line(ind, fmt::format("with block(\"{}\"):", op->name_hint));
    for (size_t i = 0; i < op->iter_vars.size(); ++i) {
      const IterVar& iv = op->iter_vars[i];
      std::string bound = values ? ", " + expr((*values)[i]) : "";
      line(ind + 1, fmt::format("{} = {}({}, {}{})", name_of(iv.var.node()),
                                iter_kind_name(iv.kind), expr(iv.min), expr(iv.extent), bound));
    }
    auto* always = pred.defined() ? pred.as<IntImm>() : nullptr;
    if (pred.defined() && !(always && always->value)) line(ind + 1, "where(" + expr(pred) + ")");
    line(ind + 1, "reads(" + regions(op->reads) + ")");
    line(ind + 1, "writes(" + regions(op->writes) + ")");
    for (const auto& [k, v] : op->annotations)
      line(ind + 1, fmt::format("annotate(\"{}\", \"{}\")", k, v));
    for (const Buffer& b : op->alloc_buffers)
      line(ind + 1, fmt::format("{} = alloc_buffer({}, \"{}\")", name_of(b.get()),
                                buffer_type(b.get()), storage_scope_name(b->scope)));
    if (op->init.defined()) {
      line(ind + 1, "with init():");
      visit_stmt(op->init, ind + 2);
    }
    visit_stmt(op->body, ind + 1);
  }
  std::string regions(const std::vector<BufferRegion>& rs) {
    std::string s;
    for (const BufferRegion& r : rs) {
      std::string dims;
      for (const Range& x : r.region) {
        auto* e = x.extent.as<IntImm>();
        bool one = e && e->value == 1;
        std::string d =
            one ? expr(x.min) : expr(x.min) + ":" + expr(arith::simplify(x.min + x.extent));
        dims += (dims.empty() ? "" : ", ") + d;
      }
      s += (s.empty() ? "" : ", ") + name_of(r.buffer.get()) + "[" + dims + "]";
    }
    return s;
  }

 private:
  std::string index_list(const std::vector<Expr>& idx) {
    std::string s;
    for (const Expr& i : idx) s += (s.empty() ? "" : ", ") + expr(i);
    return s;
  }
  std::string unique(const void* key, const std::string& base) {
    auto it = names_.find(key);
    if (it != names_.end()) return it->second;
    std::string name = base;
    for (int n = 1; taken_.count(name); ++n) name = fmt::format("{}_{}", base, n);
    taken_[name] = true;
    return names_[key] = name;
  }
  std::unordered_map<const void*, std::string> names_;
  std::unordered_map<std::string, bool> taken_;
};

const char* arg_kind_name(ArgRef::Kind k) {
  switch (k) {
    case ArgRef::kInput:
      return "input";
    case ArgRef::kOutput:
      return "output";
    case ArgRef::kWorkspace:
      return "workspace";
    case ArgRef::kConstant:
      return "constant";
    case ArgRef::kWorkspaceAt:
      return "workspace_at";
    case ArgRef::kSymbol:
      return "symbol";
  }
  return "?";
}

}  // namespace

std::string to_string(const Expr& e) {
  return Printer().expr(e);
}

std::string to_string(const Stmt& s) {
  Printer p;
  p.visit_stmt(s, 0);
  return p.out;
}

std::string to_string(const PrimFunc& f) {
  Printer p;
  p.func(f);
  return p.out;
}

std::string to_string(const IRModule& m) {
  std::string out = fmt::format("# module {}: workspace {} bytes, constants {} bytes\n",
                                m.model_name, m.workspace_bytes, m.constants.size());
  for (const PrimFunc& f : m.kernels) out += "\n" + to_string(f);
  out += "\ndef main():\n";
  for (size_t k = 0; k < m.workspace_offsets.size(); ++k)
    out += fmt::format("  # workspace_at[{}] = {} (slot {})\n", k,
                       to_string(m.workspace_offsets[k].offset), m.workspace_offsets[k].slot);
  for (const KernelCall& c : m.entry) {
    if (c.op == KernelCall::kLabel) {
      out += fmt::format(" L{}:\n", c.kernel);
      continue;
    }
    if (c.op == KernelCall::kJump) {
      out += fmt::format("  goto L{}\n", c.kernel);
      continue;
    }
    std::string args;
    for (const ArgRef& a : c.args) {
      bool is_io = a.kind == ArgRef::kInput || a.kind == ArgRef::kOutput;
      args += fmt::format("{}{}{}{}", args.empty() ? "" : ", ", arg_kind_name(a.kind),
                          is_io ? "[" : "@", a.value);
      if (is_io) args += "]";
    }
    if (c.op == KernelCall::kBranchIfZero) {
      out += fmt::format("  if not {}: goto L{}\n", args, c.kernel);
      continue;
    }
    bool known = c.kernel >= 0 && size_t(c.kernel) < m.kernels.size();
    out += fmt::format("  {}({})\n", known ? m.kernels[c.kernel].name : "?", args);
  }
  return out;
}

}  // namespace ingot::tir
