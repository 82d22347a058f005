// Compute rules of GatherND, ScatterND and ScatterElements against the ONNX spec's examples and
// hand-computed values (repeated indices, reductions, negative indices).
#include <gtest/gtest.h>

#include <string>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

TEST(ScatterGatherRules, GatherNDWithAndWithoutBatchDims) {
  // Spec example 3: data [[[0,1],[2,3]],[[4,5],[6,7]]], indices [[[0,1]],[[1,0]]] ->
  // [[[2,3]],[[4,5]]].
  HostTensor data(DataType::f32(), {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  HostTensor idx(DataType::i64(), {2, 1, 2}, {0, 1, 1, 0});
  HostTensor y = run_rule1(make_node(OpKind::GatherND), {&data, &idx}, DataType::f32(), {2, 1, 2});
  expect_near_all(y.values(), {2, 3, 4, 5});
  // Spec example 5 (batch_dims 1): indices [[1],[0]] -> [[2,3],[4,5]]; -1 wraps to 1.
  graph::Attrs a;
  a.set("batch_dims", int64_t(1));
  HostTensor bidx(DataType::i64(), {2, 1}, {-1, 0});
  HostTensor z = run_rule1(make_node(OpKind::GatherND, a), {&data, &bidx}, DataType::f32(), {2, 2});
  expect_near_all(z.values(), {2, 3, 4, 5});
}

TEST(ScatterGatherRules, ScatterNDReductionsApplyInOrder) {
  // data 4 x 2; rows 1 and 3 get updates, row 1 twice.
  HostTensor data(DataType::f32(), {4, 2}, {1, 1, 2, 2, 3, 3, 4, 4});
  HostTensor idx(DataType::i64(), {3, 1}, {1, 3, -3});  // -3 is row 1 again
  HostTensor upd(DataType::f32(), {3, 2}, {5, 6, 7, 8, 9, 1});
  auto run = [&](const char* red) {
    graph::Attrs a;
    a.set("reduction", std::string(red));
    return run_rule1(make_node(OpKind::ScatterND, a), {&data, &idx, &upd}, DataType::f32(), {4, 2})
        .values();
  };
  expect_near_all(run("none"), {1, 1, 9, 1, 3, 3, 7, 8});  // the last write to row 1 wins
  expect_near_all(run("add"), {1, 1, 16, 9, 3, 3, 11, 12});
  expect_near_all(run("mul"), {1, 1, 90, 12, 3, 3, 28, 32});
  expect_near_all(run("max"), {1, 1, 9, 6, 3, 3, 7, 8});
  expect_near_all(run("min"), {1, 1, 2, 1, 3, 3, 4, 4});
  // Element indices: one full index tuple per update.
  HostTensor eidx(DataType::i32(), {2, 2}, {0, 1, 3, 0});
  HostTensor eupd(DataType::f32(), {2}, {-1, -2});
  HostTensor e =
      run_rule1(make_node(OpKind::ScatterND), {&data, &eidx, &eupd}, DataType::f32(), {4, 2});
  expect_near_all(e.values(), {1, -1, 2, 2, 3, 3, -2, 4});
}

TEST(ScatterGatherRules, ScatterElementsAlongAxis) {
  // Spec example: data [[1,2,3,4,5]], indices [[1,3]], updates [[1.1,2.1]], axis 1.
  HostTensor data(DataType::f32(), {1, 5}, {1, 2, 3, 4, 5});
  HostTensor idx(DataType::i64(), {1, 2}, {1, -2});
  HostTensor upd(DataType::f32(), {1, 2}, {1.1, 2.1});
  graph::Attrs a;
  a.set("axis", int64_t(1));
  HostTensor y = run_rule1(make_node(OpKind::ScatterElements, a), {&data, &idx, &upd},
                           DataType::f32(), {1, 5});
  expect_near_all(y.values(), {1, 1.1, 3, 2.1, 5});
  // axis 0 with a repeated target and reduction add: column j of row indices[i][j].
  HostTensor d2(DataType::f32(), {2, 2}, {0, 0, 0, 0});
  HostTensor i2(DataType::i64(), {2, 2}, {1, 0, 1, 1});
  HostTensor u2(DataType::f32(), {2, 2}, {1, 2, 3, 4});
  graph::Attrs add;
  add.set("reduction", std::string("add"));
  HostTensor z =
      run_rule1(make_node(OpKind::ScatterElements, add), {&d2, &i2, &u2}, DataType::f32(), {2, 2});
  expect_near_all(z.values(), {0, 2, 4, 4});
}

}  // namespace
}  // namespace ingot::testing
