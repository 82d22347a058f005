// Schedule: a PrimFunc in block form being transformed by primitives, with the trace of every
// call. Handles are random variables (RVs) numbered in creation order: a BlockRV resolves to a
// block by its name (block names are unique in a function), a LoopRV to a loop by the identity
// of its loop variable (so a loop keeps its handle when other loops move around it; a loop
// replaced by split/fuse is gone), an ExprRV to an integer chosen by a sampling instruction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "schedule/error.h"
#include "schedule/trace.h"
#include "tir/prim_func.h"

namespace ingot::schedule {

struct BlockRV {
  int id = -1;
};
struct LoopRV {
  int id = -1;
};
struct ExprRV {
  int id = -1;
};

// One split factor: None (inferred), a constant, or a sampled value.
struct Factor {
  Factor(std::nullopt_t) {}        // NOLINT: implicit by design
  Factor(int v) : value(v) {}      // NOLINT
  Factor(int64_t v) : value(v) {}  // NOLINT
  Factor(ExprRV v) : rv(v) {}      // NOLINT
  std::optional<int64_t> value;
  std::optional<ExprRV> rv;
};

// How tensorize computes a partial tile (one a tail mask cuts).
enum class PartialTile {
  kLoops,     // the block's original loops: always correct, scalar speed
  kScratch,   // the intrinsic on a local copy of the output tile, copied in and out under the
              // mask; the caller asserts that every other operand the tile reads is padded to
              // whole tiles (packed panels), so the intrinsic's reads stay in bounds
  kTail,      // a second intrinsic whose description is the tile's with one loop shorter (the
              // remainder a split leaves), on the tile's own buffers: no copies, no masks
  kTailRows,  // a second intrinsic whose description is the tile's with one loop of extent 1,
              // run for each iteration of that loop inside the mask: a mask of any bound (the
              // rows past a symbolic row count), no copies; a row that a mask on the output's
              // other loops cuts (a column tail) runs it on a scratch copy of its output tile,
              // as kScratch (the other operands padded to whole tiles)
};

// How sampling instructions decide. A rule passes the decision of its default schedule (the
// untuned choice); a tuner either draws every decision afresh or forces chosen ones, and runs the
// rule again, which keeps the rest of the trace consistent with them (an intrinsic named after a
// sampled tile size, for one).
struct SamplingPolicy {
  // Draw from the seeded generator even where the caller gives a decision.
  bool ignore_given = false;
  // The decision of the k-th sampling instruction (0-based, in call order), over anything else:
  // an int (sample_categorical's index) or a list of ints (sample_perfect_tile's factors).
  std::map<int, nlohmann::json> forced = {};
};

class Schedule {
 public:
  // Wraps f's body in a "root" block unless it already is one. seed drives sampling.
  explicit Schedule(tir::PrimFunc f, uint64_t seed = 0);

  const tir::PrimFunc& func() const { return func_; }
  const Trace& trace() const { return trace_; }

  // Values of handles.
  std::string name_of(BlockRV b) const;
  tir::Var loop_var(LoopRV l) const;
  int64_t value(ExprRV v) const;
  std::string rv_name(BlockRV b) const { return "b" + std::to_string(b.id); }
  std::string rv_name(LoopRV l) const { return "l" + std::to_string(l.id); }
  std::string rv_name(ExprRV v) const { return "v" + std::to_string(v.id); }

  // --- queries ---
  BlockRV get_block(const std::string& name);
  std::vector<LoopRV> get_loops(BlockRV block);
  std::vector<BlockRV> get_child_blocks(BlockRV block);
  std::vector<BlockRV> get_child_blocks(LoopRV loop);

  // --- loop transformations ---
  std::vector<LoopRV> split(LoopRV loop, std::vector<Factor> factors);
  LoopRV fuse(std::vector<LoopRV> loops);
  void reorder(std::vector<LoopRV> order);
  // Cuts the loop's range at constant points; each part gets a copy of the body simplified
  // for its range (blocks renamed <name>_p<k>; a block left storing back what it loads is
  // removed). Returns a loop per part: the part's loop, or with `branch` (one loop whose body
  // branches on the part; the body must be one loop) the copy of that inner loop.
  std::vector<LoopRV> partition(LoopRV loop, std::vector<int64_t> cuts, bool branch = false);
  void parallel(LoopRV loop);
  void vectorize(LoopRV loop);
  void unroll(LoopRV loop);
  // The loop runs as a separate, never-inlined function (see ForKind::kOutlined): an epilogue's
  // math constants then stay out of the registers of the register tile before it.
  void outline(LoopRV loop);
  // The loop and the two inside it (extents 2, 2, 16 around one init-free block C += A * B, A
  // and B float16 widened to a float32 C) are one lane's share of a warp's m16n8k16 tensor-core
  // product (ForKind::kWarpMma; the CUDA lowering checks the lanes' layout, warp_mma.h).
  void warp_mma(LoopRV loop);
  // The shared-memory copies that open the loop's body (cache_read stages computed at it) run
  // one iteration ahead into a second buffer, so that a slab's copy overlaps the compute on the
  // previous one (ForKind::kDoubleBuffered; tir/transforms/double_buffer.h).
  void double_buffer(LoopRV loop);
  // thread: blockIdx.x/y/z or threadIdx.x/y/z.
  void bind(LoopRV loop, const std::string& thread);
  void annotate(BlockRV block, const std::string& key, const std::string& value);

  // --- sampling (decisions recorded in the trace; a given decision is used as is unless the
  //     sampling policy says otherwise) ---
  void set_sampling_policy(SamplingPolicy p) { policy_ = std::move(p); }
  const SamplingPolicy& sampling_policy() const { return policy_; }
  std::vector<ExprRV> sample_perfect_tile(LoopRV loop, int n, int max_innermost_factor,
                                          std::optional<std::vector<int64_t>> decision = {});
  ExprRV sample_categorical(std::vector<int64_t> candidates, std::vector<double> probs,
                            std::optional<int64_t> decision = {});

  // --- block transformations ---
  BlockRV decompose_reduction(BlockRV block, LoopRV loop);
  // scope: "local", "shared" or (cache_read) "global": a scratch parameter of the kernel.
  BlockRV cache_read(BlockRV block, int read_buffer_index, const std::string& scope);
  BlockRV cache_write(BlockRV block, int write_buffer_index, const std::string& scope);
  // The reduction under `loop` split into partial results per iteration of the loop: a new
  // block "<name>_rf" (returned) accumulates them in a local buffer indexed by the loop (a
  // spatial iter var there), and the block then combines them (primitives/rfactor.cpp).
  BlockRV rfactor(LoopRV loop);
  void compute_inline(BlockRV block);
  void reverse_compute_inline(BlockRV block);
  void compute_at(BlockRV block, LoopRV loop);
  void reverse_compute_at(BlockRV block, LoopRV loop);
  // A buffer the block reads (a constant parameter, or a global cache) gets a tiled layout:
  // (axis, factor) splits, then the permutation perm (tir/param_layout.h).
  void transform_layout(BlockRV block, int read_buffer_index, std::vector<int64_t> splits,
                        std::vector<int64_t> perm);
  // The loop (bound to one iter var of the block) and that iter var split by factor: returns
  // the outer and inner loop (primitives/split_block_iter.cpp).
  std::vector<LoopRV> split_block_iter(BlockRV block, LoopRV loop, int64_t factor);
  void storage_align(BlockRV block, int buffer_index, int axis, int factor, int offset);
  // A buffer the block writes (allocated in the function, or a scratch parameter) in another
  // storage scope, "local" or "shared", allocated at the root (primitives/set_scope.cpp).
  void set_scope(BlockRV block, int write_buffer_index, const std::string& scope);
  // The loops from `loop` down to the one block under them become a new tile block
  // "<block>_o" (returned) around the block.
  BlockRV blockize(LoopRV loop);
  // Replaces the body of a tile block (from blockize) by a registered intrinsic's
  // implementation when its inner block matches the intrinsic's description. A tile that a
  // tail mask cuts (a partial tile) runs as `partial` says.
  void tensorize(BlockRV block, const std::string& intrin,
                 PartialTile partial = PartialTile::kLoops);
  // The same, with the partial tile (one loop cut to its first t iterations by a tail mask on
  // that loop alone) computed by `tail_intrin`, whose description has extent t on that loop;
  // with kTailRows, each iteration of the masked loop inside the mask by `tail_intrin`, whose
  // description has extent 1 on that loop.
  void tensorize(BlockRV block, const std::string& intrin, const std::string& tail_intrin,
                 PartialTile partial = PartialTile::kTail);
  // Not yet here: loop annotations (annotate takes blocks only).

  // --- for primitive implementations and replay ---
  BlockRV new_block_rv(const std::string& name);
  LoopRV new_loop_rv(const tir::Var& var);
  ExprRV new_expr_rv(int64_t value);
  void set_body(tir::Stmt body) { func_.body = std::move(body); }
  // Appends a primitive call to the trace; it must match its instruction schema (instruction.h).
  void record(Instruction inst);
  std::mt19937_64& rng() { return rng_; }
  // The next sampling instruction's decision under the policy: forced, none (draw), or given.
  std::optional<nlohmann::json> policy_decision(std::optional<nlohmann::json> given);

 private:
  using RV = std::variant<std::string, tir::Var, int64_t>;
  const RV& rv(int id, const char* kind) const;
  void tensorize_tile(BlockRV block, const std::string& intrin, PartialTile partial,
                      const std::string& tail_intrin);

  tir::PrimFunc func_;
  Trace trace_;
  std::vector<RV> rvs_;
  std::mt19937_64 rng_;
  SamplingPolicy policy_;
  int sampled_ = 0;  // sampling instructions so far
};

// Whether a block body is a reduction rfactor can split: out[i] = combine(out[i], value) with
// combine one of +, *, max, min and value not reading out (after stores to other buffers).
bool is_rfactor_reduction(const tir::Stmt& block_body);

}  // namespace ingot::schedule
