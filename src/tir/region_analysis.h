// Region inference for blocks: the buffer regions a block body reads and writes, in terms of the
// block's iter vars, with loops inside the body relaxed over their ranges (interval analysis).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tir/stmt.h"

namespace ingot::tir {

// Inclusive symbolic interval [min, max].
struct IntervalSet {
  Expr min, max;
};
using VarDomain = std::unordered_map<const VarNode*, Range>;

// The interval e takes while the variables of dom range over their domains; nullopt when the
// expression is not one the relaxation understands (then callers use the whole dimension).
std::optional<IntervalSet> relax(const Expr& e, const VarDomain& dom);

// Relaxes each dimension of each region over dom (a point [x, x] stays a point).
std::vector<BufferRegion> relax_regions(const std::vector<BufferRegion>& regions,
                                        const VarDomain& dom);

// Reads and writes of a block with this body and init (accesses to alloc_buffers excluded).
// Buffers appear in order of first access; several accesses to one buffer are unioned.
void infer_block_regions(const Stmt& body, const Stmt& init, const std::vector<Buffer>& alloc,
                         std::vector<BufferRegion>* reads, std::vector<BufferRegion>* writes);

// Block::make with reads and writes inferred from the body and init.
Stmt make_block(std::string name_hint, std::vector<IterVar> iter_vars, Stmt body,
                Stmt init = Stmt(), std::vector<Buffer> alloc_buffers = {},
                std::map<std::string, std::string> annotations = {});

// The block rebuilt with its regions re-inferred (after a primitive rewrote its body).
Stmt reinfer_block_regions(const Block* block);

}  // namespace ingot::tir
