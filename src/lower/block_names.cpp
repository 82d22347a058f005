// Unique block names and fresh regions for a lowered kernel (see block_names.h).
#include "lower/block_names.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "tir/mutator.h"
#include "tir/region_analysis.h"

namespace ingot::lower {

using namespace tir;

namespace {

class BlockFinisher : public IRMutator {
 public:
  Stmt visit_BlockRealize(const BlockRealize* op, const Stmt& s) override {
    Stmt r = IRMutator::visit_BlockRealize(op, s);
    auto* realize = r.as<BlockRealize>();
    const Block* b = realize->block_node();
    if (b->name_hint == "root" && b->iter_vars.empty()) return r;  // fusion's root: as it is
    std::string name = b->name_hint;
    for (int k = 1; name == "root" || !names_.insert(name).second; ++k)
      name = fmt::format("{}_{}", b->name_hint, k);
    Stmt block = make_block(name, b->iter_vars, b->body, b->init, b->alloc_buffers, b->annotations);
    return BlockRealize::make(realize->iter_values, realize->predicate, block);
  }

 private:
  std::set<std::string> names_;
};

}  // namespace

Stmt finish_blocks(const Stmt& body) {
  return BlockFinisher().mutate(body);
}

}  // namespace ingot::lower
