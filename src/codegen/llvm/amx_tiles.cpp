// Lowering of the AMX tile effects (tir amx_* intrinsics, Call::make in tir/ir.cpp).
// - Where the target has AMX (amx-tile, and amx-int8 / amx-bf16 for the products): LDTILECFG of
//   a 64-byte configuration (a constant of the module: palette 1, each tile's bytes per row and
//   rows), TILEZERO, TILELOADD / TILESTORED with the row stride the two addresses give, TDPBUSD
//   and TDPBF16PS, through LLVM's intrinsics that name the tile registers. LDTILECFG with
//   TILERELEASE costs about 150-180 TSC ticks on a Sapphire Rapids guest, ten TDPBUSD at their
//   16-tick rate (bench/amx_tile_config.c), so each
//   function (a kernel, or a parallel loop's body: one thread's chunk) keeps the id of the
//   configuration in force and loads one only when it changes; the tile programs load every
//   tile they read, so the zeroing they skip is never observed. TILERELEASE runs once, before
//   each return of such a function, rather than after each tile program.
// - Elsewhere an emulation by Intel's description of each instruction, over a tile file of
//   8 x 1 KiB on the stack: the configuration zeroes the file and fixes the shapes (known here,
//   since the calls name constant tiles); a load zeroes the tile and copies its rows; a product
//   loops over the rows of C and the depth, a row of B per step. It is how the AMX micro-kernels
//   (schedule/intrin/amx_tile.h) are checked against their description on CPUs without AMX
//   (tests/codegen/amx_tile_test.cpp); bfloat16 pairs take two fused multiply-adds per step.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>

#include "codegen/llvm/kernel_lowering.h"
#include "support/error.h"

namespace ingot::codegen {

using namespace tir;

namespace {

constexpr int kTiles = 8, kTileBytes = 1024, kRowBytes = 64;

int64_t constant(const Expr& e) {
  return e.as<IntImm>()->value;
}

// for (i = 0; i < n; ++i) v = body(i, v), i an i64 phi; v (when `init` is given) a phi carried
// from `init`. Returns the last v (null without `init`).
llvm::Value* counted_loop(llvm::IRBuilderBase& b, int64_t n, llvm::Value* init,
                          const std::function<llvm::Value*(llvm::Value*, llvm::Value*)>& body) {
  llvm::Function* f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* pre = b.GetInsertBlock();
  llvm::BasicBlock* head = llvm::BasicBlock::Create(b.getContext(), "amx.loop", f);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(b.getContext(), "amx.done", f);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2);
  i->addIncoming(b.getInt64(0), pre);
  llvm::PHINode* carried = init ? b.CreatePHI(init->getType(), 2) : nullptr;
  if (carried) carried->addIncoming(init, pre);
  llvm::Value* v = body(i, carried);
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  if (carried) carried->addIncoming(v, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, b.getInt64(n)), head, exit);
  b.SetInsertPoint(exit);
  return carried ? v : nullptr;
}

}  // namespace

llvm::Value* KernelLowering::amx(const Call& op) {
  llvm::Value* zero_value = b_.getInt32(0);
  const bool native = target_.is_x86() && target_.has_feature("amx-tile") &&
                      (op.op != Intrinsic::amx_dot_u8i8 || target_.has_feature("amx-int8")) &&
                      (op.op != Intrinsic::amx_dot_bf16 || target_.has_feature("amx-bf16"));
  // The function's stack slot, in its entry block: the id of the configuration in force
  // (native; -1 on entry) or the tile file (emulation).
  llvm::Function* f = b_.GetInsertBlock()->getParent();
  llvm::Value*& scratch = amx_scratch_[f];
  if (scratch == nullptr) {
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    if (native) {
      scratch = entry.CreateAlloca(b_.getInt32Ty(), nullptr, "amx.config.id");
      entry.CreateStore(b_.getInt32(-1), scratch);
    } else {
      auto* slot = entry.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), kTiles * kTileBytes),
                                      nullptr, "amx.tiles");
      slot->setAlignment(llvm::Align(64));
      scratch = slot;
    }
  }
  auto tile = [&](int i) { return int(constant(op.args[size_t(i)])); };
  auto address = [&](int i) { return address_of(*op.args[size_t(i)].as<BufferLoad>()); };
  auto row_stride = [&] {
    llvm::Value* first = b_.CreatePtrToInt(address(1), b_.getInt64Ty());
    llvm::Value* second = b_.CreatePtrToInt(address(2), b_.getInt64Ty());
    return b_.CreateSub(second, first);
  };
  auto imm = [&](int t) { return b_.getInt8(uint8_t(t)); };
  // The emulated tile t's row r (a pointer into the file).
  auto row = [&](int t, llvm::Value* r) {
    llvm::Value* at =
        b_.CreateAdd(b_.getInt64(int64_t(t) * kTileBytes), b_.CreateMul(r, b_.getInt64(kRowBytes)));
    return b_.CreateGEP(b_.getInt8Ty(), scratch, at);
  };
  const llvm::MaybeAlign align(1);
  switch (op.op) {
    case Intrinsic::amx_tile_config: {
      for (int t = 0; t < kTiles; ++t) amx_shapes_[size_t(t)] = {tile(2 * t), tile(2 * t + 1)};
      if (!native) {
        b_.CreateMemSet(scratch, b_.getInt8(0), kTiles * kTileBytes, llvm::MaybeAlign(64));
        return zero_value;
      }
      // Palette 1, start row 0; colsb[t] (u16, little-endian) at 16 + 2t; rows[t] (u8) at 48 + t.
      std::vector<uint8_t> bytes(64, 0);
      bytes[0] = 1;
      for (int t = 0; t < kTiles; ++t) {
        const AmxShape shape = amx_shapes_[size_t(t)];
        bytes[size_t(16 + 2 * t)] = uint8_t(shape.colsb & 0xff);
        bytes[size_t(17 + 2 * t)] = uint8_t(shape.colsb >> 8);
        bytes[size_t(48 + t)] = uint8_t(shape.rows);
      }
      auto& [id, config] = amx_configs_[std::string(bytes.begin(), bytes.end())];
      if (config == nullptr) {
        id = int(amx_configs_.size()) - 1;
        config = new llvm::GlobalVariable(module_, llvm::ArrayType::get(b_.getInt8Ty(), 64),
                                          /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantDataArray::get(ctx_, bytes), "amx.config");
        config->setAlignment(llvm::Align(64));
      }
      // if (in force != id) { LDTILECFG; in force = id }
      llvm::BasicBlock* load = llvm::BasicBlock::Create(ctx_, "amx.configure", f);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "amx.configured", f);
      llvm::Value* in_force = b_.CreateLoad(b_.getInt32Ty(), scratch);
      b_.CreateCondBr(b_.CreateICmpNE(in_force, b_.getInt32(id)), load, done);
      b_.SetInsertPoint(load);
      b_.CreateIntrinsic(llvm::Intrinsic::x86_ldtilecfg, {}, {config});
      b_.CreateStore(b_.getInt32(id), scratch);
      b_.CreateBr(done);
      b_.SetInsertPoint(done);
      return zero_value;
    }
    case Intrinsic::amx_tile_release:  // (native: once per function, release_amx_tiles)
      return zero_value;
    case Intrinsic::amx_tile_zero:
      if (native)
        b_.CreateIntrinsic(llvm::Intrinsic::x86_tilezero, {}, {imm(tile(0))});
      else
        b_.CreateMemSet(row(tile(0), b_.getInt64(0)), b_.getInt8(0), kTileBytes, align);
      return zero_value;
    case Intrinsic::amx_tile_load:
    case Intrinsic::amx_tile_store: {
      const bool is_load = op.op == Intrinsic::amx_tile_load;
      const int t = tile(0);
      llvm::Value* stride = row_stride();
      llvm::Value* base = address(1);
      if (native) {
        if (is_load)
          b_.CreateIntrinsic(llvm::Intrinsic::x86_tileloadd64, {}, {imm(t), base, stride});
        else
          b_.CreateIntrinsic(llvm::Intrinsic::x86_tilestored64, {}, {imm(t), base, stride});
        return zero_value;
      }
      const AmxShape shape = amx_shapes_[size_t(t)];
      INGOT_ICHECK(shape.rows > 0, "{}: tile {} is not configured", intrinsic_name(op.op), t);
      if (is_load) b_.CreateMemSet(row(t, b_.getInt64(0)), b_.getInt8(0), kTileBytes, align);
      for (int r = 0; r < shape.rows; ++r) {
        llvm::Value* mem = b_.CreateGEP(b_.getInt8Ty(), base, b_.CreateMul(stride, b_.getInt64(r)));
        llvm::Value* reg = row(t, b_.getInt64(r));
        if (is_load)
          b_.CreateMemCpy(reg, align, mem, align, shape.colsb);
        else
          b_.CreateMemCpy(mem, align, reg, align, shape.colsb);
      }
      return zero_value;
    }
    case Intrinsic::amx_dot_u8i8:
    case Intrinsic::amx_dot_bf16: {
      const bool bf16 = op.op == Intrinsic::amx_dot_bf16;
      const int c = tile(0), a = tile(1), bt = tile(2);
      if (native) {
        b_.CreateIntrinsic(bf16 ? llvm::Intrinsic::x86_tdpbf16ps : llvm::Intrinsic::x86_tdpbusd, {},
                           {imm(c), imm(a), imm(bt)});
        return zero_value;
      }
      const AmxShape cs = amx_shapes_[size_t(c)], as = amx_shapes_[size_t(a)],
                     bs = amx_shapes_[size_t(bt)];
      INGOT_ICHECK(
          cs.rows == as.rows && bs.rows == as.colsb / 4 && bs.colsb == cs.colsb && cs.rows > 0,
          "{}: tile shapes {}x{}, {}x{}, {}x{} do not multiply", intrinsic_name(op.op), cs.rows,
          cs.colsb, as.rows, as.colsb, bs.rows, bs.colsb);
      // Every row of C and step k: all 16 dword lanes (those past colsb stay 0: B's bytes there
      // are 0 since its load zeroed them, and so were C's), by the portable dot products.
      auto* sums_type = llvm::FixedVectorType::get(bf16 ? b_.getFloatTy() : b_.getInt32Ty(), 16);
      counted_loop(b_, cs.rows, nullptr, [&](llvm::Value* m, llvm::Value*) {
        llvm::Value* c_row = row(c, m);
        llvm::Value* init = b_.CreateAlignedLoad(sums_type, c_row, align);
        llvm::Value* sums =
            counted_loop(b_, as.colsb / 4, init, [&](llvm::Value* k, llvm::Value* acc) {
              // A's dword k of row m (4 bytes, or a bfloat16 pair) against every column's in B's
              // row k.
              llvm::Value* a_at =
                  b_.CreateGEP(b_.getInt8Ty(), row(a, m), b_.CreateMul(k, b_.getInt64(4)));
              llvm::Value* a_dwords =
                  b_.CreateVectorSplat(16, b_.CreateAlignedLoad(b_.getInt32Ty(), a_at, align));
              const int elems = bf16 ? 32 : 64;
              auto* operand = llvm::FixedVectorType::get(bf16 ? b_.getInt16Ty() : b_.getInt8Ty(),
                                                         unsigned(elems));
              llvm::Value* a_vec = b_.CreateBitCast(a_dwords, operand);
              llvm::Value* b_vec = b_.CreateAlignedLoad(operand, row(bt, k), align);
              if (bf16) return pair_products(acc, bfloat16_widen(a_vec), bfloat16_widen(b_vec));
              return widened_dot(acc, a_vec, b_vec, /*a_unsigned=*/true, /*b_unsigned=*/false, 4);
            });
        b_.CreateAlignedStore(sums, c_row, align);
        return nullptr;
      });
      return zero_value;
    }
    default:
      fail_internal("codegen: {} is not an AMX effect", intrinsic_name(op.op));
  }
}

void KernelLowering::release_amx_tiles() {
  const bool native = target_.is_x86() && target_.has_feature("amx-tile");
  for (auto& [f, scratch] : amx_scratch_) {
    if (!native) break;
    for (llvm::BasicBlock& bb : *f)
      if (auto* ret = llvm::dyn_cast<llvm::ReturnInst>(bb.getTerminator())) {
        llvm::IRBuilder<> before(ret);
        before.CreateIntrinsic(llvm::Intrinsic::x86_tilerelease, {}, {});
      }
  }
  amx_scratch_.clear();
}

}  // namespace ingot::codegen
