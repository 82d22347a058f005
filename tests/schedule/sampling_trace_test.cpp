// sample_perfect_tile / sample_categorical (seeded, recorded, replayed) and the trace: JSON
// round trip, Python-like printout and malformed traces.
#include "sched_test_util.h"

namespace ingot::schedule::testing {
namespace {

TEST(SamplePerfectTile, FactorsMultiplyToTheExtentAndReplay) {
  Matmul m = make_matmul(64, 8, 4);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Schedule s(m.func, seed);
    auto l = s.get_loops(s.get_block("C"));
    auto tiles = s.sample_perfect_tile(l[0], 3, 8);
    ASSERT_EQ(tiles.size(), 3u);
    int64_t prod = 1;
    for (ExprRV t : tiles) prod *= s.value(t);
    EXPECT_EQ(prod, 64);
    EXPECT_LE(s.value(tiles[2]), 8);
    s.split(l[0], {tiles[0], tiles[1], tiles[2]});
    EXPECT_TRUE(replays(s, m.func));
    expect_matmul_numbers(s.func(), 64, 8, 4);
  }
}

TEST(SamplePerfectTile, SameSeedSameDecisionsAndSomeSeedsDiffer) {
  Matmul m = make_matmul(64, 8, 4);
  auto decision = [&](uint64_t seed) {
    Schedule s(m.func, seed);
    s.sample_perfect_tile(s.get_loops(s.get_block("C"))[0], 3, 64);
    return s.trace().instructions.back().decision;
  };
  EXPECT_EQ(decision(7), decision(7));
  bool differ = false;
  for (uint64_t seed = 1; seed < 10; ++seed) differ = differ || decision(seed) != decision(0);
  EXPECT_TRUE(differ);
}

TEST(SamplePerfectTile, GivenDecisionIsValidated) {
  Matmul m = make_matmul(64, 8, 4);
  Schedule s(m.func);
  auto l = s.get_loops(s.get_block("C"));
  auto t = s.sample_perfect_tile(l[0], 2, 16, std::vector<int64_t>{4, 16});
  EXPECT_EQ(s.value(t[1]), 16);
  EXPECT_EQ(schedule_error([&] {
              s.sample_perfect_tile(l[0], 2, 16, std::vector<int64_t>{2, 16});
            }),
            "cannot use tile decision [2,16] for loop \"i\": need 2 positive factors of 64 with "
            "the innermost at most 16");
}

TEST(SampleCategorical, DrawsRecordsAndReplays) {
  Matmul m = make_matmul(64, 8, 4);
  std::vector<int> counts(3, 0);
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Schedule s(m.func, seed);
    ExprRV v = s.sample_categorical({4, 8, 16}, {0.0, 0.5, 0.5});
    int64_t idx = s.trace().instructions.back().decision.get<int64_t>();
    EXPECT_EQ(s.value(v), std::vector<int64_t>({4, 8, 16})[size_t(idx)]);
    ++counts[size_t(idx)];
    if (seed == 0) {
      s.split(s.get_loops(s.get_block("C"))[0], {std::nullopt, v});
      EXPECT_TRUE(replays(s, m.func));
    }
  }
  EXPECT_EQ(counts[0], 0);
  EXPECT_GT(counts[1], 50);
  EXPECT_GT(counts[2], 50);
  Schedule s(m.func);
  EXPECT_EQ(schedule_error([&] {
              s.sample_categorical({1, 2}, {1.0});
            }),
            "cannot sample: 2 candidates with 1 probabilities (need equal, non-empty lists of "
            "non-negative probabilities with a positive sum)");
}

TEST(SamplingPolicy, GivenForcedAndIgnoredDecisions) {
  Matmul m = make_matmul(64, 8, 4);
  // No policy: the given decisions.
  Schedule a(m.func, 3);
  auto la = a.get_loops(a.get_block("C"));
  EXPECT_EQ(a.value(a.sample_categorical({4, 8, 16}, {1, 1, 1}, 2)), 16);
  EXPECT_EQ(a.value(a.sample_perfect_tile(la[0], 2, 64, std::vector<int64_t>{2, 32})[1]), 32);
  // ignore_given: drawn as with no decision (the same draws as a schedule given none).
  auto draws = [&](bool given, SamplingPolicy p) {
    Schedule s(m.func, 11);
    s.set_sampling_policy(std::move(p));
    auto l = s.get_loops(s.get_block("C"));
    std::vector<int64_t> out;
    for (int k = 0; k < 8; ++k)
      out.push_back(s.value(given ? s.sample_categorical({4, 8, 16}, {1, 1, 1}, 0)
                                  : s.sample_categorical({4, 8, 16}, {1, 1, 1})));
    out.push_back(s.value(s.sample_perfect_tile(
        l[0], 2, 64, given ? std::optional(std::vector<int64_t>{64, 1}) : std::nullopt)[1]));
    return out;
  };
  EXPECT_EQ(draws(true, {.ignore_given = true}), draws(false, {}));
  EXPECT_NE(draws(true, {}), draws(false, {}));
  // forced: by ordinal among sampling instructions, over given decisions and draws alike.
  std::vector<int64_t> f = draws(true, {.forced = {{1, 2}, {8, nlohmann::json{4, 16}}}});
  EXPECT_EQ(f[0], 4);
  EXPECT_EQ(f[1], 16);
  EXPECT_EQ(f[8], 16);
  // A forced decision of the wrong type or out of range is a schedule error.
  Schedule b(m.func);
  b.set_sampling_policy({.forced = {{0, nlohmann::json{1}}, {1, 5}}});
  EXPECT_EQ(schedule_error([&] {
              b.sample_categorical({4, 8}, {1, 1}, 0);
            }),
            "cannot use decision [1]: it is not an index");
  EXPECT_EQ(schedule_error([&] {
              b.sample_categorical({4, 8}, {1, 1}, 0);
            }),
            "cannot use decision 5: there are 2 candidates");
}

TEST(Trace, JsonAndPythonScript) {
  Matmul m = make_matmul(64, 8, 4);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  auto t = s.sample_perfect_tile(l[0], 2, 16, std::vector<int64_t>{4, 16});
  s.split(l[0], {t[0], t[1]});
  s.bind(l[1], "threadIdx.x");
  EXPECT_EQ(s.trace().to_python_script(),
            "b0 = sch.get_block(\"C\")\n"
            "l1, l2, l3 = sch.get_loops(b0)\n"
            "v4, v5 = sch.sample_perfect_tile(l1, n=2, max_innermost_factor=16, "
            "decision=[4, 16])\n"
            "l6, l7 = sch.split(l1, factors=[v4, v5])\n"
            "sch.bind(l2, \"threadIdx.x\")\n");
  nlohmann::json j = s.trace().to_json();
  EXPECT_EQ(j["instructions"][3]["inputs"].dump(), R"(["l1",["v4","v5"]])");
  EXPECT_EQ(j["instructions"][2]["decision"].dump(), "[4,16]");
  // A tuner mutates a decision: replay follows it.
  j["instructions"][2]["decision"] = {8, 8};
  Schedule r = Trace::from_json(j).replay(m.func);
  auto info = find_block(r.func().body, "C", nullptr);
  ASSERT_TRUE(info.has_value());
  EXPECT_TRUE(structural_equal(info->loops[1].as<For>()->extent, i64(8)));
}

TEST(Trace, MalformedTracesAreScheduleErrors) {
  Matmul m = make_matmul(8, 8, 4);
  auto replay_text = [&](const std::string& text) {
    return schedule_error([&] { Trace::from_json(nlohmann::json::parse(text)).replay(m.func); });
  };
  EXPECT_EQ(replay_text(R"({"version":2,"instructions":[]})"),
            "trace version 2 is not supported (expected 1)");
  EXPECT_EQ(
      replay_text(R"({"version":1,"instructions":[{"kind":"explode","inputs":[],"outputs":[]}]})"),
      "trace instruction \"explode\" is not a schedule primitive");
  EXPECT_EQ(
      replay_text(
          R"({"version":1,"instructions":[{"kind":"parallel","inputs":["l9"],"outputs":[]}]})"),
      "trace uses handle l9 before defining it");
}

}  // namespace
}  // namespace ingot::schedule::testing

namespace ingot::schedule::testing {
namespace {

TEST(Trace, PythonScriptOfBlockPrimitives) {
  Matmul m = make_matmul(8, 8, 4);
  Schedule s(m.func);
  BlockRV c = s.get_block("C");
  auto l = s.get_loops(c);
  BlockRV wb = s.cache_write(c, 0, "local");
  s.reverse_compute_at(wb, l[1]);
  s.decompose_reduction(c, l[2]);
  s.annotate(c, "pragma", "x");
  auto kids = s.get_child_blocks(l[1]);
  EXPECT_EQ(kids.size(), 3u);  // C_init, C, C_local under j
  EXPECT_EQ(s.trace().to_python_script(),
            "b0 = sch.get_block(\"C\")\n"
            "l1, l2, l3 = sch.get_loops(b0)\n"
            "b4 = sch.cache_write(b0, buffer_index=0, scope=\"local\")\n"
            "sch.reverse_compute_at(b4, l2)\n"
            "b5 = sch.decompose_reduction(b0, l3)\n"
            "sch.annotate(b0, key=\"pragma\", value=\"x\")\n"
            "b6, b7, b8 = sch.get_child_blocks(l2)\n");
  EXPECT_TRUE(replays(s, m.func));
  expect_matmul_numbers(s.func(), 8, 8, 4);
}

}  // namespace
}  // namespace ingot::schedule::testing
