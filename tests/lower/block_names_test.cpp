// lower/block_names.h: a lowered kernel's blocks get unique names in order (equal kernels get
// equal names), stale regions are re-inferred, and a fused kernel's root block is kept.
#include "lower/block_names.h"

#include <gtest/gtest.h>

#include "lower/compute/common.h"
#include "lower/fuse_group.h"
#include "schedule/ir_utils.h"
#include "tir/op.h"
#include "tir/visitor.h"

namespace ingot::testing {
namespace {

using namespace tir;

struct Blocks : IRVisitor {
  void visit_Block(const Block* op, const Stmt& s) override {
    names.push_back(op->name_hint);
    reads.push_back(op->reads.size());
    IRVisitor::visit_Block(op, s);
  }
  std::vector<std::string> names;
  std::vector<size_t> reads;
};

TEST(BlockNames, RepeatsAreNumberedAndRegionsReinferred) {
  // Two copies into halves of one output (as a Concat lowers), both blocks named "compute".
  Buffer a = Buffer::make("a", DataType::f32(), std::vector<int64_t>{4});
  Buffer b = Buffer::make("b", DataType::f32(), std::vector<int64_t>{4});
  Buffer y = Buffer::make("y", DataType::f32(), std::vector<int64_t>{8});
  auto copy = [&](const Buffer& from, int64_t offset) {
    return lower::loop_nest({4}, "i", [&](const lower::Index& i) {
      return BufferStore::make(y, from.load(i), {i[0] + i64(offset)});
    });
  };
  // The second nest's block reads `t`, which is then inlined as t[j] = b[j] * 2 (as fusion
  // rewrites bodies), leaving its regions stale.
  Buffer t = Buffer::make("t", DataType::f32(), std::vector<int64_t>{4});
  Var j("j");
  Stmt second = lower::inline_loads(copy(t, 4), t, {{j}, b.load({j}) * 2.0f});
  Stmt body = SeqStmt::make({copy(a, 0), second});
  Blocks before;
  before.visit(body);
  EXPECT_EQ(before.names, (std::vector<std::string>{"compute", "compute"}));
  Blocks after;
  after.visit(schedule::make_root(lower::finish_blocks(body)));
  EXPECT_EQ(after.names, (std::vector<std::string>{"root", "compute", "compute_1"}));
  // Inside a root, as fused kernels are: the root keeps its name and its (empty) regions.
  Blocks rooted;
  rooted.visit(lower::finish_blocks(schedule::make_root(body)));
  EXPECT_EQ(rooted.names, (std::vector<std::string>{"root", "compute", "compute_1"}));
  EXPECT_EQ(rooted.reads, (std::vector<size_t>{0, 1, 1}));
  // The second block reads b (its regions re-inferred from the body).
  auto info = schedule::find_block(lower::finish_blocks(body), "compute_1", nullptr);
  ASSERT_TRUE(info.has_value());
  ASSERT_EQ(info->block->reads.size(), 1u);
  EXPECT_EQ(info->block->reads[0].buffer.get(), b.get());
}

}  // namespace
}  // namespace ingot::testing
