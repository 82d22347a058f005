// The instruction registry: traces are checked against each instruction's schema when parsed
// (a wrong handle kind, count, attribute or decision is refused with the instruction and field
// named), every instruction a schedule records matches its schema, the flags a tuner reads are
// right, and a held tensor intrinsic survives a re-registration of its name.
#include <gtest/gtest.h>

#include <set>

#include "sched_test_util.h"
#include "schedule/instruction.h"
#include "schedule/intrin/intrin.h"
#include "schedule/intrin/x86_fma.h"

namespace ingot::schedule::testing {
namespace {

std::string parse_error(const std::string& instruction) {
  return schedule_error([&] {
    Trace::from_json(
        nlohmann::json::parse(R"({"version":1,"instructions":[)" + instruction + "]}"));
  });
}

TEST(InstructionRegistry, TracesBreakingASchemaAreRefusedWithTheField) {
  EXPECT_EQ(parse_error(R"({"kind":"split","inputs":["b0",[null,4]],"outputs":[]})"),
            "trace instruction split: input 0 (\"b0\") is not a loop handle");
  EXPECT_EQ(parse_error(R"({"kind":"split","inputs":["l0",[null,"x"]],"outputs":[]})"),
            "trace instruction split: input 1 ([null,\"x\"]) is not a list of factors (null, int "
            "or value handle)");
  EXPECT_EQ(parse_error(R"({"kind":"parallel","inputs":[],"outputs":[]})"),
            "trace instruction parallel takes 1 inputs, got 0");
  EXPECT_EQ(parse_error(R"({"kind":"cache_read","inputs":["b0"],"attrs":{"scope":"local"},)"
                        R"("outputs":["b1"]})"),
            "trace instruction cache_read lacks attribute buffer_index");
  EXPECT_EQ(parse_error(R"({"kind":"unroll","inputs":["l0"],"attrs":{"factor":4},"outputs":[]})"),
            "trace instruction unroll: unknown attribute factor");
  EXPECT_EQ(parse_error(R"({"kind":"partition","inputs":["l0",[4]],"attrs":{"branch":1},)"
                        R"("outputs":[]})"),
            "trace instruction partition: attribute branch (1) is not a bool");
  EXPECT_EQ(parse_error(R"({"kind":"sample_categorical","inputs":[],)"
                        R"("attrs":{"candidates":[1,2],"probs":[0.5,0.5]},"outputs":["v0"],)"
                        R"("decision":[1]})"),
            "trace instruction sample_categorical: decision [1] is not an int");
  EXPECT_EQ(parse_error(R"({"kind":"fuse","inputs":[["l0"]],"outputs":["l1"],"decision":3})"),
            "trace instruction fuse: decision 3 is not null");
}

TEST(InstructionRegistry, EveryRecordedInstructionIsRegisteredAndReplays) {
  // A schedule using most primitives: each record() checks its schema (an internal error
  // otherwise); the trace then round-trips through JSON and replays to the same function.
  Matmul m = make_matmul(64, 32, 16);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  auto t = s.sample_perfect_tile(l[0], 2, 16, std::vector<int64_t>{4, 16});
  auto i = s.split(l[0], {t[0], t[1]});
  ExprRV unroll = s.sample_categorical({1, 2}, {0.5, 0.5}, 1);
  (void)unroll;
  s.reorder({i[0], l[1], i[1]});
  BlockRV wb = s.cache_write(c, 0, "local");
  s.reverse_compute_at(wb, l[1]);
  s.decompose_reduction(c, l[2]);
  s.vectorize(s.get_loops(wb).back());
  s.parallel(i[0]);
  std::set<std::string> used;
  for (const Instruction& inst : s.trace().instructions) {
    const InstructionKind* k = find_instruction_kind(inst.kind);
    ASSERT_NE(k, nullptr) << inst.kind;
    used.insert(k->name);
  }
  EXPECT_GE(used.size(), 11u);
  EXPECT_TRUE(replays(s, m.func));
  expect_matmul_numbers(s.func(), 64, 32, 16);
}

TEST(InstructionRegistry, FlagsATunerReads) {
  std::set<std::string> sampling, pure, names;
  for (const InstructionKind& k : instruction_kinds()) {
    EXPECT_TRUE(names.insert(k.name).second) << "registered twice: " << k.name;
    EXPECT_TRUE(bool(k.apply)) << k.name;
    if (k.is_sampling()) sampling.insert(k.name);
    if (k.pure) pure.insert(k.name);
  }
  EXPECT_EQ(sampling, (std::set<std::string>{"sample_perfect_tile", "sample_categorical"}));
  EXPECT_TRUE(pure.count("get_block") && pure.count("get_loops") && pure.count("get_child_blocks"));
  EXPECT_FALSE(pure.count("split") || pure.count("tensorize") || pure.count("parallel"));
  EXPECT_EQ(find_instruction_kind("explode"), nullptr);
}

TEST(TensorIntrinTable, AHeldIntrinsicSurvivesReregistration) {
  FmaTileShape shape;
  shape.lanes = 8, shape.mr = 2, shape.nr = 8, shape.kc = 3;
  FmaTileSpec spec = gemm_tile_spec(shape);
  TensorIntrin first = make_fma_tile_intrin(spec);
  first.name = "test_reregistered_intrin";
  register_tensor_intrin(first);
  std::shared_ptr<const TensorIntrin> held = find_tensor_intrin("test_reregistered_intrin");
  ASSERT_NE(held, nullptr);
  spec.mr = 3;
  TensorIntrin second = make_fma_tile_intrin(spec);
  second.name = "test_reregistered_intrin";
  register_tensor_intrin(second);
  // The holder still reads the first (ASan would flag a freed one); lookups see the second.
  EXPECT_TRUE(tir::structural_equal(held->desc.body, first.desc.body));
  EXPECT_NE(find_tensor_intrin("test_reregistered_intrin").get(), held.get());
  EXPECT_TRUE(tir::structural_equal(find_tensor_intrin("test_reregistered_intrin")->desc.body,
                                    second.desc.body));
}

}  // namespace
}  // namespace ingot::schedule::testing
