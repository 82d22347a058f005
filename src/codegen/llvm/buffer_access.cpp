// Kernel lowering: buffer loads and stores. Multi-dimensional indices are flattened row-major
// (or with the buffer's strides). An index that is affine in the lane (Ramp/Broadcast/scalar
// per dimension) with unit stride becomes one vector load/store; others gather/scatter.
#include <llvm/IR/IRBuilder.h>

#include <functional>

#include "codegen/llvm/kernel_lowering.h"
#include "support/error.h"
#include "tir/stmt.h"

namespace ingot::codegen {

using namespace tir;

namespace {

// A flat element index: base + lane * stride for affine indices, else a vector `lanes_index`.
struct FlatIndex {
  llvm::Value* base = nullptr;    // i64 scalar (affine)
  llvm::Value* stride = nullptr;  // i64 scalar (affine)
  llvm::Value* vec = nullptr;     // <lanes x i64> (general)
  int lanes = 1;
};

}  // namespace

// Element strides of `buf` as i64 values, in dimension order.
static std::vector<llvm::Value*> element_strides(
    const BufferNode& buf, const std::function<llvm::Value*(const Expr&)>& lower,
    llvm::IRBuilderBase& b) {
  size_t n = buf.shape.size();
  std::vector<llvm::Value*> s(n);
  if (!buf.strides.empty()) {
    for (size_t i = 0; i < n; ++i) s[i] = lower(buf.strides[i]);
    return s;
  }
  llvm::Value* acc = b.getInt64(1);
  for (size_t i = n; i-- > 0;) {
    s[i] = acc;
    if (i > 0) acc = b.CreateMul(acc, lower(buf.shape[i]));
  }
  return s;
}

static FlatIndex flatten(const BufferNode& buf, const std::vector<Expr>& indices,
                         const std::function<llvm::Value*(const Expr&)>& lower,
                         llvm::IRBuilderBase& b) {
  std::vector<llvm::Value*> strides;
  if (indices.size() == 1) {
    strides = {b.getInt64(1)};  // already flat (or 1-D)
  } else {
    INGOT_ICHECK(indices.size() == buf.shape.size(), "codegen: {} indices into {}-d buffer '{}'",
                 indices.size(), buf.shape.size(), buf.name);
    strides = element_strides(buf, lower, b);
  }
  FlatIndex f;
  f.base = b.getInt64(0);
  f.stride = b.getInt64(0);
  bool affine = true;
  for (const Expr& i : indices) f.lanes = std::max<int>(f.lanes, i.dtype().lanes);
  for (const Expr& i : indices) {
    if (i.dtype().lanes == 1 || i.as<Ramp>() || i.as<Broadcast>()) continue;
    affine = false;
  }
  for (size_t d = 0; d < indices.size(); ++d) {
    const Expr& i = indices[d];
    if (!affine) {
      llvm::Value* v = lower(i);
      if (!v->getType()->isVectorTy()) v = b.CreateVectorSplat(f.lanes, v);
      llvm::Value* term = b.CreateMul(v, b.CreateVectorSplat(f.lanes, strides[d]));
      f.vec = f.vec ? b.CreateAdd(f.vec, term) : term;
    } else if (auto* r = i.as<Ramp>()) {
      f.base = b.CreateAdd(f.base, b.CreateMul(lower(r->base), strides[d]));
      f.stride = b.CreateAdd(f.stride, b.CreateMul(lower(r->stride), strides[d]));
    } else if (auto* bc = i.as<Broadcast>()) {
      f.base = b.CreateAdd(f.base, b.CreateMul(lower(bc->value), strides[d]));
    } else {
      f.base = b.CreateAdd(f.base, b.CreateMul(lower(i), strides[d]));
    }
  }
  if (!affine) f.base = f.stride = nullptr;
  return f;
}

static bool is_const(llvm::Value* v, int64_t c) {
  auto* ci = llvm::dyn_cast_or_null<llvm::ConstantInt>(v);
  return ci && ci->getSExtValue() == c;
}

// Vector of lane addresses for a gather/scatter.
static llvm::Value* lane_pointers(llvm::IRBuilderBase& b, llvm::Type* elem, llvm::Value* base_ptr,
                                  const FlatIndex& f) {
  llvm::Value* idx = f.vec;
  if (!idx) {
    auto* vt = llvm::FixedVectorType::get(b.getInt64Ty(), f.lanes);
    idx = b.CreateAdd(b.CreateVectorSplat(f.lanes, f.base),
                      b.CreateMul(b.CreateStepVector(vt), b.CreateVectorSplat(f.lanes, f.stride)));
  }
  return b.CreateGEP(elem, base_ptr, idx);
}

llvm::Value* KernelLowering::base_of(const BufferNode& buf) const {
  auto it = buffers_.find(&buf);
  INGOT_ICHECK(it != buffers_.end(), "codegen: buffer '{}' is not bound in kernel '{}'", buf.name,
               kernel_name_);
  return it->second;
}

llvm::Value* KernelLowering::load(const BufferLoad& op) {
  llvm::Value* v = load_storage(op);
  if (op.buffer->dtype.is_bool())
    v = b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  if (op.buffer->dtype.is_bfloat16()) v = bfloat16_widen(v);
  return v;
}

llvm::Value* KernelLowering::load_storage(const BufferLoad& op) {
  const BufferNode& buf = *op.buffer;
  llvm::Value* base = base_of(buf);
  auto lower = [this](const Expr& e) { return to_i64(e); };
  FlatIndex f = flatten(buf, op.indices, lower, b_);
  llvm::Type* elem = storage_type_of(buf.dtype);
  llvm::Align align(buf.dtype.bytes());
  llvm::Value* v;
  if (f.lanes == 1) {
    v = b_.CreateAlignedLoad(elem, b_.CreateGEP(elem, base, f.base), align);
  } else if (!f.vec && is_const(f.stride, 1)) {
    auto* vt = llvm::FixedVectorType::get(elem, f.lanes);
    v = b_.CreateAlignedLoad(vt, b_.CreateGEP(elem, base, f.base), align);
  } else if (!f.vec && is_const(f.stride, 0)) {
    v = b_.CreateAlignedLoad(elem, b_.CreateGEP(elem, base, f.base), align);
    v = b_.CreateVectorSplat(f.lanes, v);
  } else {
    auto* vt = llvm::FixedVectorType::get(elem, f.lanes);
    v = b_.CreateMaskedGather(vt, lane_pointers(b_, elem, base, f), align);
  }
  return v;
}

llvm::Value* KernelLowering::address_of(const BufferLoad& op) {
  const BufferNode& buf = *op.buffer;
  auto lower = [this](const Expr& e) { return to_i64(e); };
  FlatIndex f = flatten(buf, op.indices, lower, b_);
  return b_.CreateGEP(storage_type_of(buf.dtype), base_of(buf), f.base);
}

llvm::Value* KernelLowering::prefetch(const BufferLoad& op) {
  llvm::Value* ptr = address_of(op);
  // llvm.prefetch(address, read, locality 3 (keep in all levels), data cache)
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {ptr->getType()},
                     {ptr, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
  return llvm::Constant::getNullValue(type_of(op.dtype));
}

void KernelLowering::store(const BufferStore& op) {
  const BufferNode& buf = *op.buffer;
  llvm::Value* base = base_of(buf);
  llvm::Value* value = buf.dtype.is_bfloat16() ? bfloat16_operand_bits(op.value) : expr(op.value);
  if (buf.dtype.is_bool()) value = b_.CreateZExt(value, storage_type_of(op.value.dtype()));
  auto lower = [this](const Expr& e) { return to_i64(e); };
  FlatIndex f = flatten(buf, op.indices, lower, b_);
  llvm::Type* elem = storage_type_of(buf.dtype);
  llvm::Align align(buf.dtype.bytes());
  int lanes = op.value.dtype().lanes;
  if (lanes == 1 && f.lanes > 1) {
    value = b_.CreateVectorSplat(f.lanes, value);
    lanes = f.lanes;
  }
  INGOT_ICHECK(f.lanes == 1 || f.lanes == lanes, "codegen: store of {} lanes at {} indices into {}",
               lanes, f.lanes, buf.name);
  // A vector value at a scalar index is stored contiguously from there.
  if (f.lanes == 1 || (!f.vec && is_const(f.stride, 1))) {
    b_.CreateAlignedStore(value, b_.CreateGEP(elem, base, f.base), align);
  } else {
    if (!f.vec && is_const(f.stride, 0)) {  // every lane to one place: the last lane wins
      value = b_.CreateExtractElement(value, uint64_t(lanes - 1));
      b_.CreateAlignedStore(value, b_.CreateGEP(elem, base, f.base), align);
      return;
    }
    b_.CreateMaskedScatter(value, lane_pointers(b_, elem, base, f), align);
  }
}

}  // namespace ingot::codegen
