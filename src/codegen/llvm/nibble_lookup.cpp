// Kernel lowering: float32(x mod 16) for vectors of int32 on AVX-512 as one vpermps per 16
// lanes, a lookup of the table {0, 1, ..., 15} that reads only the low 4 bits of each index
// lane, in place of an and plus a conversion. The dequantizing int4 products read their weights
// this way (compute/weight_quant.cpp): at one row they are limited by the vector ports, which
// vpermps relieves (it runs on the shuffle port, the conversion on the FMA port).
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <numeric>
#include <vector>

#include "codegen/llvm/kernel_lowering.h"
#include "tir/expr.h"
#include "tir/op.h"

namespace ingot::codegen {

using namespace tir;

namespace {

constexpr int kTableLanes = 16;

// Whether e is the integer 16 (or a broadcast of it).
bool is_sixteen(const Expr& e) {
  if (auto* b = e.as<Broadcast>()) return is_sixteen(b->value);
  int64_t v = 0;
  return is_const_int(e, &v) && v == kTableLanes;
}

}  // namespace

llvm::Value* KernelLowering::nibble_to_float(const Cast& op) {
  const DataType to = op.dtype, from = op.value.dtype();
  if (!target_.is_x86() || target_.vector_isa != "avx512" || !to.is_float() || to.bits != 32 ||
      !from.is_int() || from.bits != 32 || to.lanes % kTableLanes != 0)
    return nullptr;
  const int tables = to.lanes / kTableLanes;
  if ((tables & (tables - 1)) != 0) return nullptr;  // (joined pairwise below)
  auto* mod = op.value.as<FloorMod>();
  if (mod == nullptr || !is_sixteen(mod->b)) return nullptr;
  // floormod(x, 16) is x & 15 for every two's-complement x: the index bits vpermps reads.
  llvm::Value* x = expr(mod->a);
  std::vector<llvm::Constant*> entries;
  for (int i = 0; i < kTableLanes; ++i)
    entries.push_back(llvm::ConstantFP::get(b_.getFloatTy(), double(i)));
  llvm::Constant* table = llvm::ConstantVector::get(entries);
  std::vector<llvm::Value*> parts;
  for (int at = 0; at < to.lanes; at += kTableLanes) {
    std::vector<int> lanes(kTableLanes);
    std::iota(lanes.begin(), lanes.end(), at);
    llvm::Value* index = to.lanes == kTableLanes ? x : b_.CreateShuffleVector(x, lanes);
    parts.push_back(
        b_.CreateIntrinsic(llvm::Intrinsic::x86_avx512_permvar_sf_512, {}, {table, index}));
  }
  // Concatenate pairwise until one vector of to.lanes remains.
  while (parts.size() > 1) {
    std::vector<llvm::Value*> joined;
    for (size_t i = 0; i < parts.size(); i += 2) {
      auto n = int(llvm::cast<llvm::FixedVectorType>(parts[i]->getType())->getNumElements());
      std::vector<int> lanes(size_t(2 * n));
      std::iota(lanes.begin(), lanes.end(), 0);
      joined.push_back(b_.CreateShuffleVector(parts[i], parts[i + 1], lanes));
    }
    parts = joined;
  }
  return parts[0];
}

}  // namespace ingot::codegen
