// FMA tile helpers of the rules (see the header).
#include "schedule/rules/fma_strip.h"

#include "schedule/ir_utils.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/linear_form.h"
#include "tir/op.h"
#include "tir/printer.h"
#include "tir/substitute.h"

namespace ingot::schedule {

using namespace tir;

std::optional<FmaUpdate> fma_update(const Block* block) {
  FmaUpdate u;
  u.c = block->body.as<BufferStore>();
  const auto* add = u.c ? u.c->value.as<Add>() : nullptr;
  const auto* mul = add ? add->b.as<Mul>() : nullptr;
  // (An 8-bit product widens its operands: int32(A) * int32(B).)
  auto operand = [](const Expr& e) {
    auto* c = e.as<Cast>();
    return (c != nullptr ? c->value : e).as<BufferLoad>();
  };
  u.a = mul ? operand(mul->a) : nullptr;
  u.b = mul ? operand(mul->b) : nullptr;
  if (!u.a || !u.b) return std::nullopt;
  return u;
}

FmaOperand fma_operand(const std::vector<Expr>& indices, const std::vector<Var>& vars,
                       const Var& skip) {
  FmaOperand op;
  for (const Expr& index : indices) {
    Expr e = skip.defined() ? substitute(index, skip, i64(0)) : index;
    std::vector<int64_t> row;
    for (const Var& v : vars) {
      // Compared as linear forms: the rewrite simplifier leaves (k + 1) - (k - 1) alone.
      arith::LinearForm d = arith::linear_form(substitute(e, v, i64(1))) -
                            arith::linear_form(substitute(e, v, i64(0)));
      INGOT_ICHECK(d.terms.empty(), "fma tile: index {} is not linear in {}", to_string(index),
                   v.name());
      row.push_back(d.constant);
    }
    op.dims.push_back(row);
  }
  return op;
}

void tensorize_fma_strip(Schedule& s, LoopRV tile, const FmaTileSpec& spec, int64_t rows) {
  register_tensor_intrin(make_fma_tile_intrin(spec));
  BlockRV block = s.blockize(tile);
  if (int rem = int(rows % spec.mr)) {
    FmaTileSpec tail = spec;
    tail.mr = rem;
    register_tensor_intrin(make_fma_tile_intrin(tail));
    s.tensorize(block, fma_tile_name(spec), fma_tile_name(tail));
  } else {
    s.tensorize(block, fma_tile_name(spec));
  }
}

void schedule_tile_epilogue(Schedule& s, BlockRV epilogue, LoopRV anchor) {
  s.reverse_compute_at(epilogue, anchor);
  std::vector<LoopRV> loops = s.get_loops(epilogue);
  s.vectorize(loops.back());
  std::optional<BlockInfo> b = find_block(s.func().body, s.name_of(epilogue), nullptr);
  if (!b || !uses_polynomial_math(b->block->body)) return;
  const VarNode* at = s.loop_var(anchor).node();
  for (size_t k = 0; k + 1 < loops.size(); ++k)
    if (s.loop_var(loops[k]).node() == at) return s.outline(loops[k + 1]);
}

}  // namespace ingot::schedule
