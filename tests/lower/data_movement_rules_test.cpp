// Compute rules of the data-movement ops (Transpose, Concat, Split, Pad, Gather, copies, Shape)
// against hand-written expectations and reference loops.
#include <gtest/gtest.h>

#include "rule_test_util.h"
#include "tir/op.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

std::vector<double> iota(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(double(i));
  return v;
}

TEST(DataMovementRules, Transpose) {
  HostTensor x(DataType::f32(), {2, 3, 4}, iota(24));
  graph::Attrs a;
  a.set("perm", std::vector<int64_t>{2, 0, 1});
  HostTensor y = run_rule1(make_node(OpKind::Transpose, a), {&x}, DataType::f32(), {4, 2, 3});
  std::vector<double> want;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) want.push_back(x.get(flat_index({2, 3, 4}, {i, j, k})));
  expect_near_all(y.values(), want);
}

TEST(DataMovementRules, ConcatAndSplitRoundTrip) {
  HostTensor a(DataType::i64(), {2, 1}, {1, 2});
  HostTensor b(DataType::i64(), {2, 2}, {3, 4, 5, 6});
  graph::Attrs at;
  at.set("axis", int64_t(1));
  HostTensor c = run_rule1(make_node(OpKind::Concat, at), {&a, &b}, DataType::i64(), {2, 3});
  expect_near_all(c.values(), {1, 3, 4, 2, 5, 6});
  at.set("split", std::vector<int64_t>{1, 2});
  auto parts = run_rule(make_node(OpKind::Split, at), {&c},
                        {HostTensor(DataType::i64(), {2, 1}), HostTensor(DataType::i64(), {2, 2})});
  expect_near_all(parts[0].values(), a.values());
  expect_near_all(parts[1].values(), b.values());
}

void check_pad(const std::string& mode, const std::vector<double>& want) {
  HostTensor x(DataType::f32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  graph::Attrs a;
  a.set("mode", mode);
  a.set("pads", std::vector<int64_t>{1, 2, 0, 1});
  a.set("value", 9.0);
  HostTensor y = run_rule1(make_node(OpKind::Pad, a), {&x}, DataType::f32(), {3, 6});
  expect_near_all(y.values(), want);
}

TEST(DataMovementRules, CenterCropPadCropsAndPadsCentred) {
  // [3, 4] -> [6, 1]: rows padded 1 before and 2 after, columns cropped from (4 - 1) / 2 = 1.
  HostTensor x(DataType::f32(), {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  graph::Attrs a;
  a.set("shape", std::vector<int64_t>{6, 1});
  a.set("axes", std::vector<int64_t>{0, 1});
  HostTensor y = run_rule1(make_node(OpKind::CenterCropPad, a), {&x}, DataType::f32(), {6, 1});
  expect_near_all(y.values(), {0, 2, 6, 10, 0, 0});
  // [3, 4] -> [2, 7] on int32: row crop from 0; columns padded 1 before, 2 after.
  HostTensor xi(DataType::i32(), {3, 4}, x.values());
  HostTensor z = run_rule1(make_node(OpKind::CenterCropPad, a), {&xi}, DataType::i32(), {2, 7});
  expect_near_all(z.values(), {0, 1, 2, 3, 4, 0, 0,  //
                               0, 5, 6, 7, 8, 0, 0});
}

TEST(DataMovementRules, PadConstant) {
  check_pad("constant", {9, 9, 9, 9, 9, 9,  //
                         9, 9, 1, 2, 3, 9,  //
                         9, 9, 4, 5, 6, 9});
}
TEST(DataMovementRules, PadReflect) {
  check_pad("reflect", {6, 5, 4, 5, 6, 5,  //
                        3, 2, 1, 2, 3, 2,  //
                        6, 5, 4, 5, 6, 5});
}
TEST(DataMovementRules, PadEdge) {
  check_pad("edge", {1, 1, 1, 2, 3, 3,  //
                     1, 1, 1, 2, 3, 3,  //
                     4, 4, 4, 5, 6, 6});
}
TEST(DataMovementRules, PadWrap) {      // numpy.pad(x, ((1, 0), (2, 1)), mode="wrap")
  check_pad("wrap", {5, 6, 4, 5, 6, 4,  //
                     2, 3, 1, 2, 3, 1,  //
                     5, 6, 4, 5, 6, 4});
}
TEST(DataMovementRules, PadNegativeCrops) {
  HostTensor x(DataType::f32(), {4}, {1, 2, 3, 4});
  graph::Attrs a;
  a.set("pads", std::vector<int64_t>{-1, 1});
  HostTensor y = run_rule1(make_node(OpKind::Pad, a), {&x}, DataType::f32(), {4});
  expect_near_all(y.values(), {2, 3, 4, 0});
}

TEST(DataMovementRules, GatherNegativeIndicesWrap) {
  HostTensor data(DataType::f32(), {3, 4}, iota(12));
  HostTensor idx(DataType::i64(), {2, 2}, {0, -1, 3, -4});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  HostTensor y = run_rule1(make_node(OpKind::Gather, a), {&data, &idx}, DataType::f32(), {3, 2, 2});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int64_t k : {0, 3, 3, 0}) want.push_back(double(i * 4 + k));
  expect_near_all(y.values(), want);
  HostTensor idx32(DataType::i32(), {}, {-3});
  a.set("axis", int64_t(0));
  HostTensor row = run_rule1(make_node(OpKind::Gather, a), {&data, &idx32}, DataType::f32(), {4});
  expect_near_all(row.values(), {0, 1, 2, 3});
}

// Regression (the server's load test sent token id 1000000 to a BERT model and the kernel read
// past the embedding table): indices outside the axis, after the negative wrap, clamp to it.
TEST(DataMovementRules, GatherOutOfRangeIndicesClampToTheAxis) {
  HostTensor data(DataType::f32(), {3, 4}, iota(12));
  HostTensor idx(DataType::i64(), {4}, {1000000, -1000000, 4, -5});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  HostTensor y = run_rule1(make_node(OpKind::Gather, a), {&data, &idx}, DataType::f32(), {3, 4});
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (int64_t k : {3, 0, 3, 0}) want.push_back(double(i * 4 + k));
  expect_near_all(y.values(), want);
}

TEST(DataMovementRules, ReshapeCopyBetweenShapes) {
  HostTensor x(DataType::f32(), {2, 3, 2}, iota(12));
  HostTensor y = run_rule1(make_node(OpKind::Reshape), {&x}, DataType::f32(), {3, 4});
  expect_near_all(y.values(), iota(12));
  HostTensor z = run_rule1(make_node(OpKind::Flatten), {&x}, DataType::f32(), {12});
  expect_near_all(z.values(), iota(12));
}

TEST(DataMovementRules, ShapeWithStartEnd) {
  HostTensor x(DataType::f32(), {2, 3, 5, 7});
  graph::Attrs a;
  a.set("start", int64_t(1));
  a.set("end", int64_t(-1));
  HostTensor y = run_rule1(make_node(OpKind::Shape, a), {&x}, DataType::i64(), {2});
  expect_near_all(y.values(), {3, 5});
}

TEST(Interpreter, OutOfBoundsAccessIsCaught) {
  tir::Buffer b = tir::Buffer::make("b", DataType::f32(), std::vector<int64_t>{4});
  HostTensor t(DataType::f32(), {4});
  TirInterpreter interp;
  interp.bind(b, t.data(), int64_t(t.bytes.size()));
  EXPECT_THROW(interp.exec(tir::BufferStore::make(b, tir::f32(1), {tir::i64(4)})),
               InterpreterError);
  interp.exec(tir::BufferStore::make(b, tir::f32(1), {tir::i64(3)}));
  EXPECT_EQ(t.get(3), 1.0);
}

}  // namespace
}  // namespace ingot::testing
