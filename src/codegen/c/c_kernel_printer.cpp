// The C99 kernel printer of the c target (see c_kernel_printer.h).
#include "codegen/c/c_kernel_printer.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_set>

#include "codegen/c_names.h"
#include "codegen/gpu/index_width.h"
#include "support/error.h"
#include "tir/functor.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::codegen {
namespace {

using namespace tir;

constexpr const char* kPrelude =
    R"(#define INGOT_MINMAX(T, N)                                                  \
  static inline T ingot_min_##N(T a, T b) { return a < b ? a : b; }         \
  static inline T ingot_max_##N(T a, T b) { return a > b ? a : b; }
INGOT_MINMAX(int8_t, i8)
INGOT_MINMAX(int16_t, i16)
INGOT_MINMAX(int32_t, i32)
INGOT_MINMAX(int64_t, i64)
INGOT_MINMAX(uint8_t, u8)
INGOT_MINMAX(uint16_t, u16)
INGOT_MINMAX(uint32_t, u32)
INGOT_MINMAX(uint64_t, u64)
INGOT_MINMAX(float, f32)
INGOT_MINMAX(double, f64)
#undef INGOT_MINMAX
static inline int32_t ingot_floordiv_i32(int32_t a, int32_t b) {
  int32_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static inline int32_t ingot_floormod_i32(int32_t a, int32_t b) {
  int32_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t ingot_floordiv_i64(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t ingot_floormod_i64(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline float ingot_sigmoid_f32(float x) { return 1.0f / (1.0f + expf(-x)); }
/* float16 in memory as its bits, computed in float32: IEEE conversions, ties to even. */
typedef union {
  float f;
  uint32_t u;
} ingot_f32_bits;
static inline float ingot_h2f(uint16_t h) {
  ingot_f32_bits v;
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
  if (exp == 0) {
    v.f = (float)man * 5.9604644775390625e-8f; /* man * 2^-24 */
    v.u |= sign;
  } else if (exp == 0x1f) {
    v.u = sign | 0x7f800000u | (man << 13);
  } else {
    v.u = sign | ((exp + 112u) << 23) | (man << 13);
  }
  return v.f;
}
static inline uint16_t ingot_f2h(float f) {
  ingot_f32_bits v;
  uint32_t sign, ax, r, rem;
  v.f = f;
  sign = (v.u >> 16) & 0x8000u;
  ax = v.u & 0x7fffffffu;
  if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu)); /* NaN */
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: infinity */
  if (ax < 0x38800000u) {                                   /* below 2^-14: subnormal */
    uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, s;
    if (ax < 0x33000000u) return (uint16_t)sign; /* below 2^-25 */
    s = 126u - e;
    r = m >> s;
    rem = m & ((1u << s) - 1u);
    if (rem > (1u << (s - 1u)) || (rem == (1u << (s - 1u)) && (r & 1u))) ++r;
    return (uint16_t)(sign | r);
  }
  r = (ax - 0x38000000u) >> 13;
  rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return (uint16_t)(sign | r);
}
static inline float ingot_round_f16(float x) { return ingot_h2f(ingot_f2h(x)); }
/* bfloat16 in memory as its bits (the upper half of a float32), computed in float32. */
static inline float ingot_bf2f(uint16_t h) {
  ingot_f32_bits v;
  v.u = (uint32_t)h << 16;
  return v.f;
}
static inline uint16_t ingot_f2bf(float f) {
  ingot_f32_bits v;
  v.f = f;
  if (f != f) return (uint16_t)(((v.u >> 16) & 0x8000u) | 0x7fc0u); /* NaN: quiet, its sign */
  return (uint16_t)((v.u + 0x7fffu + ((v.u >> 16) & 1u)) >> 16); /* ties to even */
}
static inline float ingot_round_bf16(float x) { return ingot_bf2f(ingot_f2bf(x)); }
static inline double ingot_sigmoid_f64(double x) { return 1.0 / (1.0 + exp(-x)); }
)";

// C99 keywords, <stdint.h> / <math.h> names the kernels use, and the helpers' prefix: no
// variable or buffer may take them.
const std::set<std::string>& reserved_names() {
  static const std::set<std::string> names = {
      "auto",     "break",    "case",     "char",     "const",    "continue", "default",  "do",
      "double",   "else",     "enum",     "extern",   "float",    "for",      "goto",     "if",
      "inline",   "int",      "long",     "register", "restrict", "return",   "short",    "signed",
      "sizeof",   "static",   "struct",   "switch",   "typedef",  "union",    "unsigned", "void",
      "volatile", "while",    "_Bool",    "int8_t",   "int16_t",  "int32_t",  "int64_t",  "uint8_t",
      "uint16_t", "uint32_t", "uint64_t", "INFINITY", "NAN",      "exp",      "expf",     "log",
      "logf",     "sqrt",     "sqrtf",    "tanh",     "tanhf",    "erf",      "erff",     "fabs",
      "fabsf",    "floor",    "floorf",   "ceil",     "ceilf",    "rint",     "rintf",    "sin",
      "sinf",     "cos",      "cosf",     "pow",      "powf",     "fmod",     "fmodf",    "main",
      "errno",    "assert"};
  return names;
}

// Let expressions inlined into their bodies (C99 has no expression-level binding; the C
// compiler shares the repeated subexpressions again).
class InlineLets : public IRMutator {
 public:
  Expr visit_Let(const Let* op, const Expr&) override {
    return mutate(substitute(op->body, op->var, op->value));
  }
};

class KernelPrinter : public ExprFunctor<std::string(const Expr&)>,
                      public StmtFunctor<void(const Stmt&)> {
 public:
  KernelPrinter(const PrimFunc& f, std::vector<bool> noalias)
      : f_(f), noalias_(std::move(noalias)), names_(reserved_names()) {}

  CKernel print(const std::string& symbol) {
    Stmt body = InlineLets().mutate(f_.body);
    narrow_ = int32_subexpressions(body);
    std::string sig;
    for (size_t i = 0; i < f_.params.size(); ++i) {
      const BufferNode* b = f_.params[i].get();
      bool restrict = i < noalias_.size() && noalias_[i];
      sig += fmt::format("{}{}* {}{}", i ? ", " : "", storage_type(b->dtype),
                         restrict ? "restrict " : "", buffer_name(b));
    }
    if (sig.empty()) sig = "void";
    out_ += fmt::format("/* {}: {} */\nstatic void {}({}) {{\n", f_.name,
                        f_.source_ops.empty() ? "kernel" : join_ops(), symbol, sig);
    indent_ = 1;
    visit_stmt(body);
    out_ += "}\n";
    return {out_, stack_bytes_};
  }

 private:
  std::string join_ops() const {
    std::string s;
    for (const std::string& op : f_.source_ops) s += (s.empty() ? "" : " + ") + op;
    return s;
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    fail_user("kernel {}: {} is not supported by the c target", f_.name, what);
  }

  // Whether `e` is an int64 value computed in int32_t (index_width.h).
  bool narrow(const Expr& e) const {
    const DataType t = e.dtype();
    return t.code == DataType::kInt && t.bits == 64 && t.is_scalar() && narrow_.count(e.get()) > 0;
  }
  // The C type of an expression's value.
  std::string type_of(const Expr& e) {
    return narrow(e) ? std::string("int32_t") : scalar_type(e.dtype());
  }
  // The C type of a scalar value (bool: int, 0 or 1).
  std::string scalar_type(DataType t) {
    if (t.is_vector()) fail_internal("kernel {}: vector code reached the C backend", f_.name);
    switch (t.code) {
      case DataType::kFloat:
        if (t.bits == 32 || t.bits == 16) return "float";  // float16 computed in float32
        if (t.bits == 64) return "double";
        break;
      case DataType::kBFloat:
        return "float";  // computed in float32
      case DataType::kInt:
        if (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)
          return fmt::format("int{}_t", t.bits);
        break;
      case DataType::kUInt:
        if (t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64)
          return fmt::format("uint{}_t", t.bits);
        break;
      case DataType::kBool:
        return "int";
      default:
        break;
    }
    unsupported("data type " + t.str());
  }
  // The element type of a buffer in memory: bool is one byte, float16 and bfloat16 their bits.
  std::string storage_type(DataType t) {
    if (t.is_bool()) return "uint8_t";
    if (is_half_width(t)) return "uint16_t";
    return scalar_type(t);
  }
  // A 16-bit float, IEEE float16 or bfloat16: computed in float32, its bits in memory.
  static bool is_half_width(DataType t) { return t.is_float() && t.bits == 16; }
  // The helpers' names of `t`'s 16-bit form ("h": float16, "bf": bfloat16).
  static std::string half_kind(DataType t) { return t.is_bfloat16() ? "bf" : "h"; }
  // A float16 tensor in memory holds bits; a local float16 array holds floats.
  bool packed(const BufferNode* b) const {
    return is_half_width(b->dtype) && !float_backed_.count(b);
  }
  // The helpers' suffix for an expression's type ("i32", "f32").
  std::string suffix(const Expr& e) {
    const DataType t = e.dtype();
    if (narrow(e)) return "i32";
    char c = t.is_float() ? 'f' : t.is_uint() ? 'u' : 'i';
    if (t.is_bool()) return "i32";
    if (is_half_width(t)) return "f32";
    return fmt::format("{}{}", c, t.bits);
  }

  std::string unique(const std::string& base) { return names_.unique(base); }
  std::string var_name(const VarNode* v) { return names_.var(v); }
  std::string buffer_name(const BufferNode* b) { return names_.buffer(b); }
  void line(const std::string& s) { out_ += std::string(size_t(indent_) * 2, ' ') + s + "\n"; }

  // Integer arithmetic narrower than int is computed in int by C: wrapped back to its type.
  std::string wrap(DataType t, const std::string& v) {
    if (t.is_integer() && t.bits < 32) return "((" + scalar_type(t) + ")" + v + ")";
    return v;
  }
  // An operand of an int64 operation computed in int64_t: widened first when it was computed
  // in int32_t (else the operation would be done, and overflow, in int32_t).
  std::string operand(const Expr& child, const Expr& parent) {
    std::string v = visit_expr(child);
    const DataType t = parent.dtype();
    if (t.code == DataType::kInt && t.bits == 64 && !narrow(parent) && narrow(child))
      return "((int64_t)" + v + ")";
    return v;
  }
  std::string binary(const char* o, const Expr& a, const Expr& b, const Expr& self) {
    return wrap(self.dtype(), "(" + operand(a, self) + " " + o + " " + operand(b, self) + ")");
  }

  // Expressions.
  std::string visit_IntImm(const IntImm* op, const Expr&) override {
    const DataType t = op->dtype;
    if (t.is_bool()) return op->value ? "1" : "0";
    if (t.code == DataType::kInt && t.bits == 64 &&
        (op->value < std::numeric_limits<int32_t>::min() ||
         op->value > std::numeric_limits<int32_t>::max())) {
      if (op->value == std::numeric_limits<int64_t>::min()) return "INT64_MIN";
      return fmt::format("INT64_C({})", op->value);
    }
    if (t.code == DataType::kUInt && t.bits == 64)
      return fmt::format("UINT64_C({})", uint64_t(op->value));
    if (t.code == DataType::kUInt && t.bits == 32) return fmt::format("{}u", uint32_t(op->value));
    if (t.code == DataType::kInt && t.bits >= 32) {
      if (op->value == std::numeric_limits<int32_t>::min()) return "INT32_MIN";
      return op->value < 0 ? fmt::format("({})", op->value) : fmt::format("{}", op->value);
    }
    return fmt::format("(({}){})", scalar_type(t), op->value);
  }
  std::string visit_FloatImm(const FloatImm* op, const Expr&) override {
    const bool f32 = op->dtype.bits <= 32;
    const char* cast = f32 ? "(float)" : "(double)";
    if (std::isnan(op->value)) return fmt::format("({}NAN)", cast);
    if (std::isinf(op->value)) return fmt::format("({}{}INFINITY)", cast, op->value < 0 ? "-" : "");
    std::string s = f32 ? fmt::format("{:.9g}", op->value) : fmt::format("{:.17g}", op->value);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return "(" + s + (f32 ? "f)" : ")");
  }
  std::string visit_Var(const VarNode* op, const Expr&) override { return var_name(op); }
  std::string visit_Add(const Add* op, const Expr& e) override {
    return binary("+", op->a, op->b, e);
  }
  std::string visit_Sub(const Sub* op, const Expr& e) override {
    return binary("-", op->a, op->b, e);
  }
  std::string visit_Mul(const Mul* op, const Expr& e) override {
    return binary("*", op->a, op->b, e);
  }
  std::string visit_Div(const Div* op, const Expr& e) override {
    return binary("/", op->a, op->b, e);
  }
  std::string floor_op(const char* name, const Expr& a, const Expr& b, const Expr& self) {
    const DataType t = self.dtype();
    std::string x = operand(a, self), y = operand(b, self);
    // A signed division by a constant power of two is an arithmetic shift (GCC and Clang shift
    // negative values arithmetically), the modulo a mask (two's complement).
    int64_t d = 0;
    if (t.is_int() && is_const_int(b, &d) && d > 0 && (d & (d - 1)) == 0) {
      int k = 0;
      while ((int64_t(1) << k) < d) ++k;
      if (name[5] == 'd') return wrap(t, fmt::format("({} >> {})", x, k));
      return wrap(t, fmt::format("({} & {})", x, visit_expr(make_const(b.dtype(), double(d - 1)))));
    }
    if (t.is_float()) {
      const char* fl = t.bits == 32 ? "floorf" : "floor";
      if (std::string(name) == "floordiv") return fmt::format("{}({} / {})", fl, x, y);
      return fmt::format("({} - {}({} / {}) * {})", x, fl, x, y, y);
    }
    if (t.is_uint()) return wrap(t, fmt::format("({} {} {})", x, name[5] == 'd' ? "/" : "%", y));
    const bool wide = t.bits == 64 && !narrow(self);
    return wrap(t, fmt::format("ingot_{}_{}({}, {})", name, wide ? "i64" : "i32", x, y));
  }
  std::string visit_FloorDiv(const FloorDiv* op, const Expr& e) override {
    return floor_op("floordiv", op->a, op->b, e);
  }
  std::string visit_FloorMod(const FloorMod* op, const Expr& e) override {
    return floor_op("floormod", op->a, op->b, e);
  }
  std::string visit_Min(const Min* op, const Expr& e) override {
    return fmt::format("ingot_min_{}({}, {})", suffix(e), visit_expr(op->a), visit_expr(op->b));
  }
  std::string visit_Max(const Max* op, const Expr& e) override {
    return fmt::format("ingot_max_{}({}, {})", suffix(e), visit_expr(op->a), visit_expr(op->b));
  }
  std::string compare(const char* o, const Expr& a, const Expr& b) {
    return "(" + visit_expr(a) + " " + o + " " + visit_expr(b) + ")";
  }
  std::string visit_EQ(const EQ* op, const Expr&) override { return compare("==", op->a, op->b); }
  std::string visit_NE(const NE* op, const Expr&) override { return compare("!=", op->a, op->b); }
  std::string visit_LT(const LT* op, const Expr&) override { return compare("<", op->a, op->b); }
  std::string visit_LE(const LE* op, const Expr&) override { return compare("<=", op->a, op->b); }
  std::string visit_GT(const GT* op, const Expr&) override { return compare(">", op->a, op->b); }
  std::string visit_GE(const GE* op, const Expr&) override { return compare(">=", op->a, op->b); }
  std::string visit_And(const And* op, const Expr&) override { return compare("&&", op->a, op->b); }
  std::string visit_Or(const Or* op, const Expr&) override { return compare("||", op->a, op->b); }
  std::string visit_Not(const Not* op, const Expr&) override {
    return "(!" + visit_expr(op->a) + ")";
  }
  std::string visit_Select(const Select* op, const Expr&) override {
    return "(" + visit_expr(op->condition) + " ? " + visit_expr(op->true_value) + " : " +
           visit_expr(op->false_value) + ")";
  }
  std::string visit_Cast(const Cast* op, const Expr& e) override {
    std::string v = visit_expr(op->value);
    if (op->dtype.is_bool()) return "(" + v + " != 0)";
    if (is_half_width(op->dtype))
      return std::string(op->dtype.is_bfloat16() ? "ingot_round_bf16" : "ingot_round_f16") +
             "((float)" + v + ")";
    return "((" + type_of(e) + ")" + v + ")";
  }
  std::string visit_Call(const Call* op, const Expr&) override {
    if (op->op == Intrinsic::prefetch) return "0";  // a hint C99 has no word for
    if (is_amx_intrinsic(op->op))
      fail_internal("kernel {}: an AMX micro-kernel reached the C backend", f_.name);
    std::vector<std::string> a;
    for (const Expr& x : op->args) a.push_back(visit_expr(x));
    if (!op->dtype.is_float())
      unsupported(fmt::format("{} of {}", intrinsic_name(op->op), op->dtype.str()));
    const bool f32 = op->dtype.bits <= 32;
    const std::string f = f32 ? "f" : "";
    switch (op->op) {
      case Intrinsic::sigmoid:
        return fmt::format("ingot_sigmoid_{}({})", f32 ? "f32" : "f64", a[0]);
      case Intrinsic::round:
        return fmt::format("rint{}({})", f, a[0]);
      case Intrinsic::warp_shuffle_down:
        fail_internal("kernel {}: a warp shuffle reached the C backend", f_.name);
      case Intrinsic::dot_bf16:
        fail_internal("kernel {}: a bfloat16 micro-kernel reached the C backend", f_.name);
      case Intrinsic::pow:
      case Intrinsic::fmod:
        return fmt::format("{}{}({}, {})", intrinsic_name(op->op), f, a[0], a[1]);
      default:
        return fmt::format("{}{}({})", intrinsic_name(op->op), f, a[0]);
    }
  }
  // The element offset of an access: the index of a flat buffer, else row-major over the shape
  // or the sum over the strides.
  std::string element(const BufferNode& b, const std::vector<Expr>& indices) {
    if (indices.size() == 1) return visit_expr(indices[0]);
    std::string e;
    for (size_t k = 0; k < indices.size(); ++k) {
      std::string i = visit_expr(indices[k]);
      if (!b.strides.empty()) {
        e += (k ? " + " : "") + i + " * " + visit_expr(b.strides[k]);
      } else {
        e = k == 0 ? i : "(" + e + ") * " + visit_expr(b.shape[k]) + " + " + i;
      }
    }
    return e.empty() ? "0" : e;
  }
  std::string visit_BufferLoad(const BufferLoad* op, const Expr&) override {
    std::string v = buffer_name(op->buffer.get()) + "[" + element(*op->buffer, op->indices) + "]";
    if (!packed(op->buffer.get())) return v;
    return "ingot_" + half_kind(op->buffer->dtype) + "2f(" + v + ")";
  }
  std::string visit_Ramp(const Ramp*, const Expr&) override { return vector_code(); }
  std::string visit_Broadcast(const Broadcast*, const Expr&) override { return vector_code(); }
  std::string visit_Shuffle(const Shuffle*, const Expr&) override { return vector_code(); }
  std::string visit_Let(const Let*, const Expr&) override {
    fail_internal("kernel {}: a let expression was not inlined", f_.name);
  }
  [[noreturn]] std::string vector_code() {
    fail_internal("kernel {}: vector code reached the C backend", f_.name);
  }

  // Statements.
  void visit_For(const For* op, const Stmt&) override {
    if (op->kind == ForKind::kThreadBinding || op->kind == ForKind::kWarpMma)
      fail_internal("kernel {}: a GPU loop reached the C backend", f_.name);
    const std::string v = var_name(op->loop_var.node());
    const std::string t = type_of(op->loop_var);
    const std::string lo = visit_expr(op->min), n = visit_expr(op->extent);
    if (is_const_int(op->min, nullptr) && is_const_int(op->extent, nullptr)) {
      int64_t a = 0, b = 0;
      is_const_int(op->min, &a);
      is_const_int(op->extent, &b);
      line(fmt::format("for ({} {} = {}; {} < {}; ++{}) {{", t, v, a, v, a + b, v));
    } else {
      const std::string end = unique(v + "_end");
      line(fmt::format("for ({} {} = {}, {} = {} + {}; {} < {}; ++{}) {{", t, v, lo, end, lo, n, v,
                       end, v));
    }
    ++indent_;
    visit_stmt(op->body);
    --indent_;
    line("}");
  }
  void visit_BufferStore(const BufferStore* op, const Stmt&) override {
    std::string v = visit_expr(op->value);
    if (op->buffer->dtype.is_bool()) v = "(uint8_t)(" + v + ")";
    if (packed(op->buffer.get())) v = "ingot_f2" + half_kind(op->buffer->dtype) + "(" + v + ")";
    line(buffer_name(op->buffer.get()) + "[" + element(*op->buffer, op->indices) + "] = " + v +
         ";");
  }
  void visit_SeqStmt(const SeqStmt* op, const Stmt&) override {
    for (const Stmt& s : op->seq) visit_stmt(s);
  }
  void visit_IfThenElse(const IfThenElse* op, const Stmt&) override {
    line("if (" + visit_expr(op->condition) + ") {");
    ++indent_;
    visit_stmt(op->then_case);
    --indent_;
    if (op->else_case.defined()) {
      line("} else {");
      ++indent_;
      visit_stmt(op->else_case);
      --indent_;
    }
    line("}");
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&) override {
    line("{");
    ++indent_;
    line(fmt::format("const {} {} = {};", type_of(op->var), var_name(op->var.node()),
                     visit_expr(op->value)));
    visit_stmt(op->body);
    --indent_;
    line("}");
  }
  void visit_Allocate(const Allocate* op, const Stmt&) override {
    const BufferNode& b = *op->buffer;
    if (b.scope == StorageScope::kShared)
      fail_internal("kernel {}: GPU shared memory reached the C backend", f_.name);
    // Elements: the dense size, or with strides the furthest element reached plus one.
    int64_t count = 1, last = 0;
    for (size_t k = 0; k < b.shape.size(); ++k) {
      int64_t v = 0, st = 0;
      if (!is_const_int(b.shape[k], &v))
        fail_internal("kernel {}: local buffer '{}' needs a constant shape", f_.name, b.name);
      count *= v;
      if (b.strides.empty()) continue;
      if (!is_const_int(b.strides[k], &st))
        fail_internal("kernel {}: local buffer '{}' needs constant strides", f_.name, b.name);
      last += (v - 1) * st;
    }
    if (!b.strides.empty() && count > 0) count = last + 1;
    count = std::max<int64_t>(count, 1);
    stack_bytes_ += count * (is_half_width(b.dtype) ? 4 : b.dtype.bytes());
    line("{");
    ++indent_;
    if (is_half_width(b.dtype)) float_backed_.insert(&b);
    line(fmt::format("{} {}[{}];",
                     is_half_width(b.dtype) ? std::string("float") : storage_type(b.dtype),
                     buffer_name(&b), count));
    visit_stmt(op->body);
    --indent_;
    line("}");
  }
  void visit_Evaluate(const Evaluate* op, const Stmt&) override {
    line("(void)" + visit_expr(op->value) + ";");
  }
  void visit_Block(const Block*, const Stmt&) override {
    fail_internal("kernel {}: a block reached the C backend (not lowered)", f_.name);
  }
  void visit_BlockRealize(const BlockRealize*, const Stmt&) override {
    fail_internal("kernel {}: a block reached the C backend (not lowered)", f_.name);
  }

  const PrimFunc& f_;
  std::vector<bool> noalias_;
  std::unordered_set<const ExprNode*> narrow_;
  std::string out_;
  int indent_ = 0;
  int64_t stack_bytes_ = 0;
  CNames names_;
  std::set<const BufferNode*> float_backed_;  // local float16 arrays, held in float32
};

}  // namespace

CKernel print_c_kernel(const PrimFunc& f, const std::string& symbol,
                       const std::vector<bool>& noalias) {
  return KernelPrinter(f, noalias).print(symbol);
}

const char* c_kernel_prelude() {
  return kPrelude;
}

}  // namespace ingot::codegen
