// Internal: each op family file appends its OpInfo entries; op.cpp assembles the table.
#pragma once

#include <vector>

#include "ops/op.h"

namespace ingot::ops::detail {

void add_elementwise_ops(std::vector<OpInfo>& t);
void add_conv_ops(std::vector<OpInfo>& t);
void add_matmul_ops(std::vector<OpInfo>& t);
void add_normalization_ops(std::vector<OpInfo>& t);
void add_pooling_ops(std::vector<OpInfo>& t);
void add_reduction_ops(std::vector<OpInfo>& t);
void add_shape_ops(std::vector<OpInfo>& t);
void add_data_movement_ops(std::vector<OpInfo>& t);

}  // namespace ingot::ops::detail
