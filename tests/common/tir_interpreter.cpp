// Reference loop-IR interpreter for tests: scalar evaluation with float32 (float16) rounding after
// every float32 (float16) operation, bounds-checked buffer access, and an IRModule entry runner.
#include "tir_interpreter.h"

#include <fmt/format.h>
#include <map>

#include <cmath>

#include "support/half.h"
#include "tir/op.h"
#include "tir/transforms/lower_blocks.h"

namespace ingot::testing {

using namespace tir;

namespace {

[[noreturn]] void fail(const std::string& msg) {
  throw InterpreterError(msg);
}

double round_to(DataType d, double v) {
  if (d.is_float() && d.bits == 16) return round_to_half(v);
  return d.is_float() && d.bits == 32 ? double(float(v)) : v;
}

int64_t wrap_int(DataType d, int64_t v) {
  if (d.is_bool()) return v != 0;
  if (d.bits >= 64) return v;
  if (d.is_uint()) return int64_t(uint64_t(v) & ((uint64_t(1) << d.bits) - 1));
  int64_t m = int64_t(1) << d.bits;
  v &= (m - 1);
  return v >= m / 2 ? v - m : v;
}

int64_t const_dim(const Expr& e) {
  int64_t v = 0;
  if (!is_const_int(e, &v)) fail("non-constant buffer dimension");
  return v;
}

}  // namespace

HostTensor::HostTensor(DataType d, std::vector<int64_t> s) : dtype(d), shape(std::move(s)) {
  bytes.assign(size_t(size() * d.bytes()), 0);
}

HostTensor::HostTensor(DataType d, std::vector<int64_t> s, const std::vector<double>& values)
    : HostTensor(d, std::move(s)) {
  if (int64_t(values.size()) != size()) fail("HostTensor: wrong number of values");
  for (int64_t i = 0; i < size(); ++i) set(i, values[i]);
}

int64_t HostTensor::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

double HostTensor::get(int64_t i) const {
  const uint8_t* p = bytes.data() + i * dtype.bytes();
  auto ld = [&](auto t) {
    decltype(t) v;
    std::memcpy(&v, p, sizeof v);
    return double(v);
  };
  if (dtype.is_float() && dtype.bits == 16) return half_bits_to_double(uint16_t(ld(uint16_t())));
  if (dtype.is_float()) return dtype.bits == 32 ? ld(float()) : ld(double());
  if (dtype.is_bool()) return ld(uint8_t());
  if (dtype.is_uint()) return ld(uint8_t());
  switch (dtype.bits) {
    case 8:
      return ld(int8_t());
    case 16:
      return ld(int16_t());
    case 32:
      return ld(int32_t());
    default:
      return ld(int64_t());
  }
}

void HostTensor::set(int64_t i, double v) {
  uint8_t* p = bytes.data() + i * dtype.bytes();
  auto st = [&](auto t) {
    t = decltype(t)(v);
    std::memcpy(p, &t, sizeof t);
  };
  if (dtype.is_float() && dtype.bits == 16) {
    uint16_t h = double_to_half_bits(v);
    std::memcpy(p, &h, 2);
    return;
  }
  if (dtype.is_float()) return dtype.bits == 32 ? st(float()) : st(double());
  if (dtype.is_bool()) return st(uint8_t());
  if (dtype.is_uint()) return st(uint8_t());
  switch (dtype.bits) {
    case 8:
      return st(int8_t());
    case 16:
      return st(int16_t());
    case 32:
      return st(int32_t());
    default:
      return st(int64_t());
  }
}

std::vector<double> HostTensor::values() const {
  std::vector<double> v(static_cast<size_t>(size()));
  for (int64_t i = 0; i < size(); ++i) v[i] = get(i);
  return v;
}

void TirInterpreter::bind(const Buffer& buffer, void* data, int64_t nbytes) {
  buffers_[buffer.get()] = {static_cast<uint8_t*>(data), nbytes};
}

double TirInterpreter::eval(const Expr& e) {
  Scalar s = ev(e);
  return e.dtype().is_float() ? s.f : double(s.i);
}

int64_t TirInterpreter::offset(const BufferNode* b, const std::vector<Expr>& indices) {
  auto it = buffers_.find(b);
  if (it == buffers_.end()) fail(fmt::format("buffer {} is not bound", b->name));
  int64_t off = 0;
  if (indices.size() == 1 && b->shape.size() != 1) {
    off = ev(indices[0]).i;  // flat index after flattening
  } else {
    if (indices.size() != b->shape.size())
      fail(fmt::format("{} indices into rank-{} buffer {}", indices.size(), b->shape.size(),
                       b->name));
    int64_t stride = 1;
    for (int k = int(indices.size()) - 1; k >= 0; --k) {
      if (indices[k].dtype().lanes != 1) fail("vector indices are not supported");
      int64_t i = ev(indices[k]).i, dim = const_dim(b->shape[k]);
      if (i < 0 || i >= dim)
        fail(fmt::format("index {} out of bounds [0, {}) in dim {} of {}", i, dim, k, b->name));
      int64_t s = b->strides.empty() ? stride : const_dim(b->strides[k]);
      off += i * s;
      stride *= dim;
    }
  }
  if (off < 0 || (off + 1) * b->dtype.bytes() > it->second.nbytes)
    fail(fmt::format("flat offset {} outside buffer {}", off, b->name));
  return off;
}

TirInterpreter::Scalar TirInterpreter::read(const BufferNode* b, int64_t off) {
  HostTensor view;  // reuse the conversion code on a borrowed element
  view.dtype = b->dtype;
  view.bytes.resize(size_t(b->dtype.bytes()));
  std::memcpy(view.bytes.data(), buffers_[b].data + off * b->dtype.bytes(), view.bytes.size());
  double v = view.get(0);
  Scalar s;
  if (b->dtype.is_float())
    s.f = v;
  else
    s.i = int64_t(v);
  if (b->dtype.bits == 64 && b->dtype.is_int())
    std::memcpy(&s.i, view.bytes.data(), 8);  // exact int64
  return s;
}

void TirInterpreter::write(const BufferNode* b, int64_t off, Scalar v) {
  uint8_t* p = buffers_[b].data + off * b->dtype.bytes();
  if (b->dtype.is_int() && b->dtype.bits == 64) {
    std::memcpy(p, &v.i, 8);
    return;
  }
  HostTensor view;
  view.dtype = b->dtype;
  view.bytes.resize(size_t(b->dtype.bytes()));
  view.set(0, b->dtype.is_float() ? v.f : double(v.i));
  std::memcpy(p, view.bytes.data(), view.bytes.size());
}

TirInterpreter::Scalar TirInterpreter::ev(const Expr& e) {
  DataType d = e.dtype();
  if (d.lanes != 1) fail("vector expressions are not supported");
  Scalar r;
  switch (e.tag()) {
    case NodeTag::IntImm:
      r.i = e.as<IntImm>()->value;
      return r;
    case NodeTag::FloatImm:
      r.f = round_to(d, e.as<FloatImm>()->value);
      return r;
    case NodeTag::Var: {
      auto it = vars_.find(e.as<VarNode>());
      if (it == vars_.end()) fail(fmt::format("unbound variable {}", e.as<VarNode>()->name));
      return it->second;
    }
#define INGOT_X(N, op)                     \
  case NodeTag::N: {                       \
    auto* n = e.as<N>();                   \
    return binary(e.tag(), n->a, n->b, d); \
  }
      INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X
    case NodeTag::Not:
      r.i = !ev(e.as<Not>()->a).i;
      return r;
    case NodeTag::Select: {
      auto* n = e.as<Select>();
      // Both branches are evaluated, as vector code would: loads must be in bounds either way.
      Scalar t = ev(n->true_value), f = ev(n->false_value);
      return ev(n->condition).i ? t : f;
    }
    case NodeTag::Cast: {
      auto* n = e.as<Cast>();
      Scalar v = ev(n->value);
      DataType from = n->value.dtype();
      if (d.is_float()) {
        r.f = round_to(d, from.is_float() ? v.f : double(v.i));
      } else if (d.is_bool()) {
        r.i = from.is_float() ? v.f != 0 : v.i != 0;
      } else {
        r.i = wrap_int(d, from.is_float() ? int64_t(std::trunc(v.f)) : v.i);
      }
      return r;
    }
    case NodeTag::Call: {
      auto* n = e.as<Call>();
      if (n->op == Intrinsic::prefetch) return Scalar{};  // a cache hint: reads nothing
      double x = ev(n->args[0]).f;
      double y = n->args.size() > 1 ? ev(n->args[1]).f : 0;
      double v = 0;
      switch (n->op) {
        case Intrinsic::exp:
          v = std::exp(x);
          break;
        case Intrinsic::log:
          v = std::log(x);
          break;
        case Intrinsic::sqrt:
          v = std::sqrt(x);
          break;
        case Intrinsic::tanh:
          v = std::tanh(x);
          break;
        case Intrinsic::erf:
          v = std::erf(x);
          break;
        case Intrinsic::sigmoid:
          v = 1.0 / (1.0 + std::exp(-x));
          break;
        case Intrinsic::fabs:
          v = std::fabs(x);
          break;
        case Intrinsic::floor:
          v = std::floor(x);
          break;
        case Intrinsic::ceil:
          v = std::ceil(x);
          break;
        case Intrinsic::round:
          v = std::nearbyint(x);
          break;
        case Intrinsic::sin:
          v = std::sin(x);
          break;
        case Intrinsic::cos:
          v = std::cos(x);
          break;
        case Intrinsic::pow:
          v = std::pow(x, y);
          break;
        case Intrinsic::fmod:
          v = std::fmod(x, y);
          break;
        case Intrinsic::prefetch:
          fail("prefetch has no value (handled above)");
        case Intrinsic::warp_shuffle_down:
          fail("warp_shuffle_down needs the threads of a GPU warp");
        case Intrinsic::dot_i32:
        case Intrinsic::dot_bf16:
          fail("dot products take vectors (tests run them through codegen)");
        case Intrinsic::amx_tile_config:
        case Intrinsic::amx_tile_zero:
        case Intrinsic::amx_tile_load:
        case Intrinsic::amx_tile_store:
        case Intrinsic::amx_dot_u8i8:
        case Intrinsic::amx_dot_bf16:
        case Intrinsic::amx_tile_release:
          fail("AMX tiles run through codegen (its emulation on CPUs without AMX)");
      }
      r.f = round_to(d, v);
      return r;
    }
    case NodeTag::BufferLoad: {
      auto* n = e.as<BufferLoad>();
      return read(n->buffer.get(), offset(n->buffer.get(), n->indices));
    }
    case NodeTag::Let: {
      auto* n = e.as<Let>();
      vars_[n->var.node()] = ev(n->value);
      return ev(n->body);
    }
    default:
      fail(fmt::format("unsupported expression {}", node_tag_name(e.tag())));
  }
}

TirInterpreter::Scalar TirInterpreter::binary(NodeTag tag, const Expr& ea, const Expr& eb,
                                              DataType d) {
  Scalar a = ev(ea), b = ev(eb), r;
  DataType od = ea.dtype();
  if (od.is_float()) {
    double x = a.f, y = b.f;
    switch (tag) {
      case NodeTag::Add:
        r.f = x + y;
        break;
      case NodeTag::Sub:
        r.f = x - y;
        break;
      case NodeTag::Mul:
        r.f = x * y;
        break;
      case NodeTag::Div:
        r.f = x / y;
        break;
      case NodeTag::Min:
        r.f = std::min(x, y);
        break;
      case NodeTag::Max:
        r.f = std::max(x, y);
        break;
      case NodeTag::EQ:
        r.i = x == y;
        break;
      case NodeTag::NE:
        r.i = x != y;
        break;
      case NodeTag::LT:
        r.i = x < y;
        break;
      case NodeTag::LE:
        r.i = x <= y;
        break;
      case NodeTag::GT:
        r.i = x > y;
        break;
      case NodeTag::GE:
        r.i = x >= y;
        break;
      default:
        fail(fmt::format("{} of float operands", node_tag_name(tag)));
    }
    r.f = round_to(d, r.f);
    return r;
  }
  int64_t x = a.i, y = b.i;
  auto need_nonzero = [&] {
    if (y == 0) fail("integer division by zero");
  };
  switch (tag) {
    case NodeTag::Add:
      r.i = x + y;
      break;
    case NodeTag::Sub:
      r.i = x - y;
      break;
    case NodeTag::Mul:
      r.i = x * y;
      break;
    case NodeTag::Div:
      need_nonzero();
      r.i = x / y;
      break;
    case NodeTag::FloorDiv:
      need_nonzero();
      r.i = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
      break;
    case NodeTag::FloorMod:
      need_nonzero();
      r.i = x % y;
      if (r.i != 0 && ((r.i < 0) != (y < 0))) r.i += y;
      break;
    case NodeTag::Min:
      r.i = std::min(x, y);
      break;
    case NodeTag::Max:
      r.i = std::max(x, y);
      break;
    case NodeTag::EQ:
      r.i = x == y;
      break;
    case NodeTag::NE:
      r.i = x != y;
      break;
    case NodeTag::LT:
      r.i = x < y;
      break;
    case NodeTag::LE:
      r.i = x <= y;
      break;
    case NodeTag::GT:
      r.i = x > y;
      break;
    case NodeTag::GE:
      r.i = x >= y;
      break;
    case NodeTag::And:
      r.i = x && y;
      break;
    case NodeTag::Or:
      r.i = x || y;
      break;
    default:
      fail(fmt::format("unsupported binary {}", node_tag_name(tag)));
  }
  if (!d.is_bool()) r.i = wrap_int(d, r.i);
  return r;
}

void TirInterpreter::exec(const Stmt& s) {
  switch (s.tag()) {
    case NodeTag::For: {
      auto* n = s.as<For>();
      int64_t lo = ev(n->min).i, ext = ev(n->extent).i;
      for (int64_t i = lo; i < lo + ext; ++i) {
        vars_[n->loop_var.node()].i = i;
        exec(n->body);
      }
      return;
    }
    case NodeTag::BufferStore: {
      auto* n = s.as<BufferStore>();
      Scalar v = ev(n->value);
      write(n->buffer.get(), offset(n->buffer.get(), n->indices), v);
      ++stores_;
      return;
    }
    case NodeTag::SeqStmt:
      for (const Stmt& c : s.as<SeqStmt>()->seq) exec(c);
      return;
    case NodeTag::IfThenElse: {
      auto* n = s.as<IfThenElse>();
      if (ev(n->condition).i)
        exec(n->then_case);
      else if (n->else_case.defined())
        exec(n->else_case);
      return;
    }
    case NodeTag::LetStmt: {
      auto* n = s.as<LetStmt>();
      vars_[n->var.node()] = ev(n->value);
      exec(n->body);
      return;
    }
    case NodeTag::Allocate: {
      auto* n = s.as<Allocate>();
      int64_t count = 1, last = 0;
      for (size_t k = 0; k < n->buffer->shape.size(); ++k) {
        int64_t dim = const_dim(n->buffer->shape[k]);
        count *= dim;
        if (!n->buffer->strides.empty()) last += (dim - 1) * const_dim(n->buffer->strides[k]);
      }
      if (!n->buffer->strides.empty() && count > 0) count = last + 1;        // padded strides
      locals_.emplace_back(size_t(count * n->buffer->dtype.bytes()), 0xFF);  // poisoned (NaN)
      buffers_[n->buffer.get()] = {locals_.back().data(), int64_t(locals_.back().size())};
      exec(n->body);
      buffers_.erase(n->buffer.get());
      return;
    }
    case NodeTag::Evaluate:
      ev(s.as<Evaluate>()->value);
      return;
    case NodeTag::BlockRealize: {
      // Block form (a compute rule's elementwise nest): run its lowering, made once per node.
      auto it = lowered_blocks_.find(s.get());
      if (it == lowered_blocks_.end())
        it = lowered_blocks_.emplace(s.get(), std::pair(s, lower_blocks_stmt(s))).first;
      exec(it->second.second);
      return;
    }
    default:
      fail(fmt::format("unsupported statement {}", node_tag_name(s.tag())));
  }
}

namespace {

int64_t param_bytes(const Buffer& b) {
  int64_t n = b->dtype.bytes();
  for (const Expr& d : b->shape) n *= const_dim(d);
  return n;
}

}  // namespace

void run_prim_func(const PrimFunc& f, const std::vector<HostTensor*>& args) {
  if (args.size() != f.params.size()) fail("run_prim_func: wrong number of arguments");
  TirInterpreter interp;
  for (size_t i = 0; i < args.size(); ++i) {
    if (int64_t(args[i]->bytes.size()) < param_bytes(f.params[i]))
      fail(fmt::format("argument {} is smaller than param {}", i, f.params[i]->name));
    interp.bind(f.params[i], args[i]->data(), int64_t(args[i]->bytes.size()));
  }
  interp.exec(f.body);
}

void run_module(const IRModule& m, const std::vector<HostTensor*>& inputs,
                const std::vector<HostTensor*>& outputs) {
  std::vector<uint8_t> workspace(m.workspace_bytes, 0xFF);  // poisoned (NaN)
  std::vector<uint8_t> constants = m.constants;
  std::map<int, size_t> labels;  // control flow: label -> step index
  for (size_t i = 0; i < m.entry.size(); ++i)
    if (m.entry[i].op == KernelCall::kLabel) labels[m.entry[i].kernel] = i;
  for (size_t pc = 0; pc < m.entry.size(); ++pc) {
    const KernelCall& call = m.entry[pc];
    if (call.op == KernelCall::kLabel) continue;
    if (call.op == KernelCall::kJump || call.op == KernelCall::kBranchIfZero) {
      bool take = call.op == KernelCall::kJump;
      if (!take) {
        const ArgRef& a = call.args.at(0);
        const uint8_t* flag =
            a.kind == ArgRef::kWorkspace ? workspace.data() + a.value
            : a.kind == ArgRef::kInput
                ? static_cast<const uint8_t*>(inputs.at(size_t(a.value))->data())
                : static_cast<const uint8_t*>(outputs.at(size_t(a.value))->data());
        take = *flag == 0;
      }
      if (take) pc = labels.at(call.kernel);
      continue;
    }
    const PrimFunc& f = m.kernels.at(size_t(call.kernel));
    if (call.args.size() != f.params.size()) fail("kernel call with the wrong argument count");
    TirInterpreter interp;
    for (size_t i = 0; i < call.args.size(); ++i) {
      const ArgRef& a = call.args[i];
      int64_t need = param_bytes(f.params[i]);
      uint8_t* base = nullptr;
      int64_t avail = 0;
      switch (a.kind) {
        case ArgRef::kInput:
          base = static_cast<uint8_t*>(inputs.at(size_t(a.value))->data());
          avail = int64_t(inputs[size_t(a.value)]->bytes.size());
          break;
        case ArgRef::kOutput:
          base = static_cast<uint8_t*>(outputs.at(size_t(a.value))->data());
          avail = int64_t(outputs[size_t(a.value)]->bytes.size());
          break;
        case ArgRef::kWorkspace:
          // Blocks start 64-byte aligned; a Concat input inside its output's block (memory
          // plan) is aligned to its element only.
          if (a.value % f.params[i]->dtype.bytes() != 0) fail("misaligned workspace offset");
          base = workspace.data() + a.value;
          avail = int64_t(workspace.size()) - a.value;
          break;
        case ArgRef::kConstant:
          if (a.value % 64 != 0) fail("unaligned constant offset");
          base = constants.data() + a.value;
          avail = int64_t(constants.size()) - a.value;
          break;
        case ArgRef::kWorkspaceAt:
          fail("symbolic memory plans are not interpreted");
        case ArgRef::kSymbol:
          fail("data-dependent sizes are not interpreted");
      }
      if (avail < need) fail(fmt::format("param {} of {} exceeds its memory", i, f.name));
      interp.bind(f.params[i], base, need);
    }
    interp.exec(f.body);
  }
  if (constants != m.constants) fail("a kernel wrote into the constant blob");
}

}  // namespace ingot::testing
