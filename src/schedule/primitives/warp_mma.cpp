// Primitive warp_mma: a loop and the two inside it, extents 2 x 2 x 16 around one init-free block
// `C += float(A) * float(B)` (A, B float16, C float32), become one lane's share of a warp's
// m16n8k16 tensor-core product (ForKind::kWarpMma). The loops stay the product's reference
// semantics, so OpenCL and the CPU run them as they are; the CUDA lowering replaces them by an
// mma.sync after checking that the warp's lanes hold the tile in the instruction's layout
// (codegen/gpu/warp_mma.h). The GPU matmul rule arranges the lanes that way.
#include "schedule/primitives/common.h"
#include "tir/op.h"
#include "tir/reduction.h"

namespace ingot::schedule {

using namespace tir;

class WarpMmaError : public ScheduleError {
  using ScheduleError::ScheduleError;
};

// Preconditions: the loop is serial (or already warp_mma); it and its body are a chain of
// three loops of extents 2, 2 and 16 around one BlockRealize whose block has no init and whose
// body matches match_widened_product, and whose predicate does not use the innermost loop.
void Schedule::warp_mma(LoopRV loop) {
  LoopInfo li = loop_info(*this, loop);
  const std::string name = qname(li.node->loop_var.name());
  if (li.node->kind != ForKind::kSerial && li.node->kind != ForKind::kWarpMma)
    fail_schedule<WarpMmaError>("cannot make loop {} a warp's mma: it is {}", name,
                                for_kind_name(li.node->kind));
  const int64_t want[3] = {2, 2, 16};
  Stmt cur = li.loop;
  Var depth;
  for (int64_t extent : want) {
    const auto* f = cur.as<For>();
    int64_t e = 0;
    if (f == nullptr || !is_const_int(f->extent, &e) || e != extent || !is_const_int(f->min, &e) ||
        e != 0)
      fail_schedule<WarpMmaError>(
          "cannot make loop {} a warp's mma: it is not a chain of loops of extents 2, 2, 16 "
          "from 0",
          name);
    depth = f->loop_var;
    cur = f->body;
  }
  const auto* realize = cur.as<BlockRealize>();
  const Block* block = realize ? realize->block_node() : nullptr;
  const auto* store = block ? block->body.as<BufferStore>() : nullptr;
  if (store == nullptr || block->init.defined() || !match_widened_product(*store))
    fail_schedule<WarpMmaError>(
        "cannot make loop {} a warp's mma: its body is not one init-free block accumulating a "
        "product of two float16 values in float32",
        name);
  // (A predicate may mask rows and columns of a partial tile, whose sums are then not stored;
  // masked steps of k would change the sums that are.)
  if (uses_var(realize->predicate, depth))
    fail_schedule<WarpMmaError>(
        "cannot make loop {} a warp's mma: its block's predicate masks "
        "steps of k",
        name);
  set_loop_kind(*this, li, ForKind::kWarpMma);
  record({"warp_mma", {rv_name(loop)}, nlohmann::json::object(), {}, {}});
}

}  // namespace ingot::schedule
