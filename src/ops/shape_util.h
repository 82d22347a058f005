// Internal helpers for op type inference: dim arithmetic (static or symbolic), broadcasting,
// axis normalisation and checks that raise UserErrors naming the node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op.h"

namespace ingot::ops::detail {

using graph::Dim;
using graph::DType;
using graph::Node;
using graph::SymExpr;
using graph::TensorType;

std::string shape_str(const std::vector<Dim>& s);  // "[N,3]"

// The type of input i; UserError when that input is omitted.
const TensorType& input_type(const Node& n, int i, const char* what);
bool has_input(const Node& n, int i);

// Numpy broadcasting of two shapes; UserError "<node>: shapes [2,3] and [4] do not broadcast".
std::vector<Dim> broadcast_shapes(const Node& n, const std::vector<Dim>& a,
                                  const std::vector<Dim>& b);
// Two dims that must be equal (e.g. a contraction dim); symbolic vs static takes the static.
Dim merge_dims(const Node& n, const Dim& a, const Dim& b, const std::string& what);

// axis in [-rank, rank) -> [0, rank); UserError naming the attribute otherwise.
int64_t normalize_axis(const Node& n, int64_t axis, int64_t rank, const char* attr);
std::vector<int64_t> normalize_axes(const Node& n, const std::vector<int64_t>& axes, int64_t rank,
                                    const char* attr);  // unique check too

// A dim that cannot be written as an expression of the input dims (it depends on values) gets
// a fresh symbol derived from the output.
Dim derived_dim(const Node& n, int output, int axis);
// Product of dims: static when all are static, else the symbolic product ("12*seq").
Dim dim_product(const std::vector<Dim>& dims);

// The values of a shape-like operand: those of input `slot` when it is attached (a constant, or
// a value known as expressions of the symbols), else the ints of attribute `attr` (a constant
// input that inference moved there); nullopt when neither is there. UserError when the input
// is computed at run time.
std::optional<std::vector<graph::SymExpr>> shape_operand(const Node& n, int slot, const char* attr,
                                                         const char* what);

// Element count with symbolic dims counted as 1 (for FLOP estimates).
double approx_elements(const TensorType& t);

void require_same_dtype(const Node& n, const TensorType& a, const TensorType& b, const char* what_a,
                        const char* what_b);
void require_rank_at_least(const Node& n, const TensorType& t, int rank, const char* what);

// The fused activation of a Conv/MatMul epilogue (graph pass fuse_epilogue): attribute
// `activation` absent, Relu, Clip (with activation_params [min, max]), Gelu (erf form), or one
// of the one-input activations of is_epilogue_activation with its float attributes as
// activation_alpha / activation_beta / activation_gamma.
void check_fused_activation(const Node& n);
// The attribute schema of the fused epilogue (activation, activation_params, activation_alpha,
// activation_beta, activation_gamma).
std::vector<AttrSpec> epilogue_attr_specs();

}  // namespace ingot::ops::detail
