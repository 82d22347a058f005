// Compute rule of Einsum against plain reference loops written out per equation.
#include <gtest/gtest.h>

#include "rule_test_util.h"

namespace ingot::testing {
namespace {

using ops::OpKind;
using tir::DataType;

graph::Node einsum(const char* equation) {
  graph::Attrs a;
  a.set("equation", std::string(equation));
  return make_node(OpKind::Einsum, a);
}

TEST(EinsumRules, BatchMatmul) {
  HostTensor x = random_f32({3, 2, 4}, 1), w = random_f32({3, 4, 5}, 2);
  HostTensor y = run_rule1(einsum("bij,bjk->bik"), {&x, &w}, DataType::f32(), {3, 2, 5});
  std::vector<double> want;
  for (int b = 0; b < 3; ++b)
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 5; ++k) {
        double s = 0;
        for (int j = 0; j < 4; ++j) s += x.get((b * 2 + i) * 4 + j) * w.get((b * 4 + j) * 5 + k);
        want.push_back(s);
      }
  expect_near_all(y.values(), want);
}

TEST(EinsumRules, TransposeAndInnerProduct) {
  HostTensor x = random_f32({3, 4}, 3);
  HostTensor t = run_rule1(einsum("ij->ji"), {&x}, DataType::f32(), {4, 3});
  std::vector<double> want;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) want.push_back(x.get(i * 4 + j));
  expect_near_all(t.values(), want);
  HostTensor a = random_f32({5}, 4), b = random_f32({5}, 5);
  HostTensor d = run_rule1(einsum("i,i->"), {&a, &b}, DataType::f32(), {});
  double dot = 0;
  for (int i = 0; i < 5; ++i) dot += a.get(i) * b.get(i);
  expect_near_all(d.values(), {dot});
}

TEST(EinsumRules, BatchDiagonalAndTrace) {
  HostTensor x = random_f32({2, 3, 3}, 6);
  HostTensor y = run_rule1(einsum("...ii->...i"), {&x}, DataType::f32(), {2, 3});
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i) want.push_back(x.get(b * 9 + i * 4));
  expect_near_all(y.values(), want);
  HostTensor tr = run_rule1(einsum("bii->b"), {&x}, DataType::f32(), {2});
  expect_near_all(tr.values(), {want[0] + want[1] + want[2], want[3] + want[4] + want[5]});
}

TEST(EinsumRules, EllipsisBroadcast) {
  // a: [2,1 | 2,3], b: [4 | 3,2] -> [2,4,2,2].
  HostTensor a = random_f32({2, 1, 2, 3}, 7), b = random_f32({4, 3, 2}, 8);
  HostTensor y = run_rule1(einsum("...ij,...jk->...ik"), {&a, &b}, DataType::f32(), {2, 4, 2, 2});
  std::vector<double> want;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 4; ++q)
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          double s = 0;
          for (int j = 0; j < 3; ++j) s += a.get((p * 2 + i) * 3 + j) * b.get((q * 3 + j) * 2 + k);
          want.push_back(s);
        }
  expect_near_all(y.values(), want);
}

TEST(EinsumRules, ThreeOperandsInt32) {
  // y[i] = sum_j,k x[i,j] * u[j] * v[j,k] on int32.
  HostTensor x(DataType::i32(), {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor u(DataType::i32(), {3}, {1, -1, 2});
  HostTensor v(DataType::i32(), {3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor y = run_rule1(einsum("ij,j,jk->i"), {&x, &u, &v}, DataType::i32(), {2});
  // row sums of v: 3, 7, 11 -> weights u*rowsum: 3, -7, 22.
  expect_near_all(y.values(), {1 * 3 - 2 * 7 + 3 * 22, 4 * 3 - 5 * 7 + 6 * 22});
}

}  // namespace
}  // namespace ingot::testing
