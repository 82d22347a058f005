// Lowers one tir::PrimFunc to an LLVM function
// `i32 @name(ptr p0, ..., i64 shape_var0, ..., ptr services)`.
// Internal to codegen/llvm; split over kernel_lowering.cpp (functions, statements, loops),
// expr_lowering.cpp, nibble_lookup.cpp, buffer_access.cpp, loop_outlining.cpp, int_dot.cpp,
// bf16_dot.cpp and amx_tiles.cpp.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "codegen/target.h"
#include "tir/prim_func.h"

namespace llvm {
class BasicBlock;
class Function;
class FunctionType;
class GlobalVariable;
class IRBuilderBase;
class LLVMContext;
class Module;
class StructType;
class Type;
class Value;
}  // namespace llvm

namespace ingot::codegen {

// The LLVM type of a kernel: i32 (ptr per buffer param, i64 per shape var, ptr services).
llvm::FunctionType* kernel_function_type(const tir::PrimFunc& func, llvm::LLVMContext& ctx);

class KernelLowering {
 public:
  KernelLowering(llvm::Module& module, const Target& target);
  ~KernelLowering();
  KernelLowering(const KernelLowering&) = delete;
  KernelLowering& operator=(const KernelLowering&) = delete;

  // Emits the kernel. noalias[i]: parameter i never overlaps another parameter.
  llvm::Function* lower(const tir::PrimFunc& func, const std::vector<bool>& noalias);

  // LLVM layout of abi.h's IngotServices (shared with the entry function).
  static llvm::StructType* services_type(llvm::LLVMContext& ctx);

 private:
  // Types: register type of a dtype (bool -> i1) and its in-memory element type (bool -> i8).
  llvm::Type* type_of(tir::DataType t);
  llvm::Type* storage_type_of(tir::DataType t);

  // Statements (kernel_lowering.cpp).
  void stmt(const tir::Stmt& s);
  void for_loop(const tir::For& op);
  void serial_loop(const tir::Var& var, llvm::Value* begin, llvm::Value* end, tir::ForKind kind,
                   const tir::Stmt& body);
  void allocate(const tir::Allocate& op);
  void if_then_else(const tir::IfThenElse& op);
  // Returns `status` from the current function when it is non-zero.
  void return_if_error(llvm::Value* status);
  llvm::Value* entry_alloca(llvm::Type* type, llvm::Value* count, int align);

  // Expressions (expr_lowering.cpp).
  llvm::Value* expr(const tir::Expr& e);
  llvm::Value* binary(tir::NodeTag tag, tir::DataType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* compare(tir::NodeTag tag, tir::DataType t, llvm::Value* a, llvm::Value* b);
  llvm::Value* cast(tir::DataType from, tir::DataType to, llvm::Value* v);
  llvm::Value* to_i64(const tir::Expr& e);  // scalar integer expression widened to i64
  // float32(x mod 16) over int32 lanes as table lookups where the target has them
  // (nibble_lookup.cpp); nullptr when `op` is not that or the target lacks them.
  llvm::Value* nibble_to_float(const tir::Cast& op);

  // bfloat16 (bfloat16.cpp): its values are float32 in registers and its 16 bits in memory.
  // The float32 value of bfloat16 bits (i16 lanes); float32 lanes rounded to the nearest
  // bfloat16 value (ties to even, NaNs kept quiet), still float32; and that rounding's bits.
  llvm::Value* bfloat16_widen(llvm::Value* bits);
  llvm::Value* bfloat16_round(llvm::Value* f);
  llvm::Value* bfloat16_bits(llvm::Value* f);

  // Buffer access (buffer_access.cpp): a bound buffer's base pointer, loads, prefetches, stores.
  llvm::Value* base_of(const tir::BufferNode& buf) const;
  // The address of the (scalar) element `op` reads.
  llvm::Value* address_of(const tir::BufferLoad& op);
  llvm::Value* load(const tir::BufferLoad& op);
  // The same elements as stored (storage_type_of: bool's bytes, bfloat16's bits), unconverted.
  llvm::Value* load_storage(const tir::BufferLoad& op);
  // The integer dot product dot_i32 (tir/ir.cpp Call::make): VPDPBUSD where the target has a
  // VNNI extension and the operands are uint8 x int8 in groups of 4, VPMADDWD plus an add for
  // int16 pairs on AVX2 / AVX-512BW, else a portable widening sequence (int_dot.cpp).
  llvm::Value* dot_i32(const tir::Call& op);
  // The bfloat16 pair product dot_bf16 (tir/ir.cpp Call::make): VDPBF16PS where the target has
  // AVX512-BF16 (256 bits also needing AVX512VL), else widened products and adds (bf16_dot.cpp).
  llvm::Value* dot_bf16(const tir::Call& op);
  // Their portable forms on LLVM values (also the AMX emulation's, amx_tiles.cpp): acc (L int32
  // lanes) plus each lane's `group` products of a and b (L * group 8/16-bit lanes, each widened
  // by its signedness); acc (L float32 lanes) plus each lane's pair of a and b (2L float32
  // lanes) by two fused multiply-adds.
  llvm::Value* widened_dot(llvm::Value* acc, llvm::Value* a, llvm::Value* b, bool a_unsigned,
                           bool b_unsigned, int group);
  llvm::Value* pair_products(llvm::Value* acc, llvm::Value* a, llvm::Value* b);
  // The bits (i16 lanes) of a bfloat16 expression: a load's, a shuffle's or a select's of
  // loads and constants own bits (stores of values that move unchanged, a Pad's, copy them),
  // else its float32 value rounded (exact for bfloat16 values).
  llvm::Value* bfloat16_operand_bits(const tir::Expr& e);
  // An AMX tile effect (tir amx_* intrinsics, Call::make): the tile instructions where the
  // target has AMX (amx-tile with amx-int8 / amx-bf16), else their emulation over a tile file
  // on the stack (amx_tiles.cpp); the value is 0.
  llvm::Value* amx(const tir::Call& op);
  // A prefetch of the element `op` addresses (tir prefetch intrinsic); its value is 0.
  llvm::Value* prefetch(const tir::BufferLoad& op);
  void store(const tir::BufferStore& op);

  // Outlined loops (loop_outlining.cpp): parallel loops, and serial loops that the schedule
  // outlined (ForKind::kOutlined).
  // Every value in scope (the services table, variables, buffer base pointers), sorted by name.
  struct Scope {
    std::vector<const tir::VarNode*> vars;
    std::vector<const tir::BufferNode*> buffers;
    std::vector<llvm::Value*> values;  // services, then vars, then buffers
    std::vector<llvm::Type*> types;
  };
  Scope capture_scope();
  void bind_scope(const Scope& scope, const std::vector<llvm::Value*>& values);
  // i32 @name(scope values..., begin, end): op's loop over [begin, end) with the scope as
  // parameters (those noalias here stay noalias). Leaves the builder where it was.
  llvm::Function* outline_loop(const tir::For& op, const Scope& scope, const std::string& name);
  void parallel_loop(const tir::For& op);
  void outlined_loop(const tir::For& op);
  // Runs `body` with the builder at a new entry block of f (fn_ = f) and restores the current
  // function's state (function, scope, insert point) after it.
  void emit_in(llvm::Function* f, const std::function<void()>& body);

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  Target target_;
  struct Builder;  // owns the llvm::IRBuilder<> (defined in kernel_lowering.cpp)
  std::unique_ptr<Builder> builder_;
  llvm::IRBuilderBase& b_;
  llvm::Function* fn_ = nullptr;     // function being emitted (kernel or outlined body)
  llvm::Value* services_ = nullptr;  // the IngotServices* of the current function
  std::unordered_map<const tir::VarNode*, llvm::Value*> vars_;
  std::unordered_map<const tir::BufferNode*, llvm::Value*> buffers_;  // base pointers
  std::string kernel_name_;
  int num_outlined_ = 0;
  // AMX (amx_tiles.cpp): the tile shapes of the last amx_tile_config; per function the tile
  // file (emulation) or the id of the configuration in force (native: an int32 slot, -1 at
  // entry); the module's configurations (64-byte constants, by their bytes).
  struct AmxShape {
    int rows = 0, colsb = 0;
  };
  std::array<AmxShape, 8> amx_shapes_{};
  std::unordered_map<llvm::Function*, llvm::Value*> amx_scratch_;
  std::map<std::string, std::pair<int, llvm::GlobalVariable*>> amx_configs_;
  // Releases the tiles before each return of the functions that configured them natively.
  void release_amx_tiles();
};

}  // namespace ingot::codegen
