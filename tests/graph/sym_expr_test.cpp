// graph::SymExpr: canonical forms (equal expressions compare equal however they were built),
// exact division, floordiv/mod splitting, min/max by sign proofs, and evaluation checked against
// plain integer arithmetic over a grid of bindings.
#include "graph/sym_expr.h"

#include <gtest/gtest.h>

#include <functional>

#include "support/error.h"

namespace ingot::graph {
namespace {

const SymExpr seq = SymExpr::symbol("seq");
const SymExpr past = SymExpr::symbol("past");
const SymExpr n = SymExpr::symbol("N");

TEST(SymExpr, CanonicalFormIsIndependentOfConstructionOrder) {
  EXPECT_EQ(seq + past, past + seq);
  EXPECT_EQ((seq + 1) * (past + 2), past * seq + 2 * seq + past + 2);
  EXPECT_EQ(seq * past, past * seq);
  EXPECT_EQ(seq - seq, SymExpr(0));
  EXPECT_EQ((seq + past) - past, seq);
  EXPECT_EQ((seq + past).str(), "past+seq");
  EXPECT_EQ((768 * seq).str(), "768*seq");
  EXPECT_EQ((seq * seq - 1).str(), "seq*seq-1");
  EXPECT_EQ((-seq + 3).str(), "-seq+3");
  EXPECT_EQ(SymExpr(0).str(), "0");
  EXPECT_TRUE(SymExpr(5).is_constant());
  EXPECT_EQ(SymExpr(5).as_constant(), 5);
  EXPECT_FALSE(seq.as_constant());
  EXPECT_EQ(seq.symbol_name(), "seq");
  EXPECT_EQ((seq + 1).symbol_name(), "");
  EXPECT_EQ((seq * past + n).symbols(), (std::set<std::string>{"N", "past", "seq"}));
}

TEST(SymExpr, ExactDivisionCancelsMonomials) {
  EXPECT_EQ((768 * seq).divide_exact(SymExpr(768)), seq);
  EXPECT_EQ((12 * n * seq).divide_exact(n * 12), seq);
  EXPECT_EQ((4 * n * seq + 8 * n).divide_exact(4 * n), seq + 2);
  EXPECT_FALSE((768 * seq + 1).divide_exact(SymExpr(768)));
  EXPECT_FALSE((n * seq).divide_exact(past));
  // Several terms: a one-term quotient ([4, past+seq, 16] reshaped to [-1, past+seq, 16]).
  EXPECT_EQ((64 * past + 64 * seq).divide_exact(16 * past + 16 * seq), SymExpr(4));
  EXPECT_EQ((16 * past * seq + 16 * seq * seq).divide_exact(16 * (past + seq)), seq);
  EXPECT_EQ((4 * past + 4).divide_exact(past + 1), SymExpr(4));
  EXPECT_FALSE(seq.divide_exact(seq + 1));
  EXPECT_FALSE((seq * seq + 1).divide_exact(seq + 1));
  EXPECT_FALSE((past * seq + seq + past + 1).divide_exact(past + 1));  // quotient seq + 1
}

TEST(SymExpr, FloorDivAndModSplitOffMultiples) {
  EXPECT_EQ(SymExpr::floordiv(64 * seq, 64), seq);
  EXPECT_EQ(SymExpr::floordiv(64 * seq + 63, 64), seq);
  EXPECT_EQ(SymExpr::floordiv(64 * seq + 65, 64), seq + 1);
  EXPECT_EQ(SymExpr::floordiv(seq + 1, 2).str(), "floordiv(seq+1,2)");
  EXPECT_EQ(SymExpr::floordiv(SymExpr::floordiv(seq, 2), 3), SymExpr::floordiv(seq, 6));
  EXPECT_EQ(SymExpr::ceildiv(seq, 4), SymExpr::floordiv(seq + 3, 4));
  EXPECT_EQ(SymExpr::mod(8 * seq + 3, 4), SymExpr(3));
  EXPECT_EQ(SymExpr::mod(seq, 4).str(), "mod(seq,4)");
  EXPECT_EQ(SymExpr::floordiv(SymExpr(-7), 2), SymExpr(-4));
  EXPECT_EQ(SymExpr::mod(SymExpr(-7), 2), SymExpr(1));
}

TEST(SymExpr, MinMaxDecideBySignProofs) {
  EXPECT_EQ(SymExpr::min(seq, seq + past), seq);  // past >= 0
  EXPECT_EQ(SymExpr::max(seq, seq + past), seq + past);
  EXPECT_EQ(SymExpr::min(seq + 5, seq + 2), seq + 2);
  EXPECT_EQ(SymExpr::min(seq, SymExpr(0)), SymExpr(0));
  EXPECT_EQ(SymExpr::min(seq, SymExpr(128)).str(), "min(seq,128)");
  EXPECT_EQ(SymExpr::min(SymExpr(128), seq), SymExpr::min(seq, SymExpr(128)));  // commutes
  EXPECT_TRUE((seq * past + SymExpr::floordiv(seq, 2)).provably_nonnegative());
  EXPECT_FALSE((seq - 1).provably_nonnegative());
}

TEST(SymExpr, EvaluatesLikeIntegerArithmetic) {
  using F = std::function<int64_t(int64_t, int64_t)>;
  auto fdiv = [](int64_t a, int64_t c) { return a >= 0 ? a / c : -((-a + c - 1) / c); };
  const std::vector<std::pair<SymExpr, F>> cases = {
      {(seq + 1) * (past + 2) - 3 * seq,
       [](int64_t s, int64_t p) { return (s + 1) * (p + 2) - 3 * s; }},
      {SymExpr::floordiv(seq - 5, 3), [&](int64_t s, int64_t) { return fdiv(s - 5, 3); }},
      {SymExpr::mod(2 * seq + past, 3), [&](int64_t s, int64_t p) { return (2 * s + p) % 3; }},
      {SymExpr::ceildiv(seq + past, 8), [&](int64_t s, int64_t p) { return (s + p + 7) / 8; }},
      {SymExpr::min(seq, past + 1) * 2,
       [](int64_t s, int64_t p) { return std::min(s, p + 1) * 2; }},
      {SymExpr::max(seq - 4, SymExpr(0)),
       [](int64_t s, int64_t) { return std::max<int64_t>(s - 4, 0); }},
  };
  for (const auto& [e, f] : cases)
    for (int64_t s = 0; s < 20; ++s)
      for (int64_t p = 0; p < 7; ++p)
        EXPECT_EQ(e.evaluate({{"seq", s}, {"past", p}}), f(s, p)) << e.str() << " seq=" << s;
  EXPECT_FALSE((seq + past).evaluate({{"seq", 1}}));  // past unbound
}

TEST(SymExpr, OverflowIsAUserError) {
  SymExpr big(int64_t(1) << 62);
  EXPECT_THROW(big * 4, UserError);
  EXPECT_THROW(big + big, UserError);
}

}  // namespace
}  // namespace ingot::graph
