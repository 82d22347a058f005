// Einsum equations parsed against the operands' ranks: one label per operand dim (repeated
// labels take diagonals), ellipsis dims as their own right-aligned labels (broadcast across
// operands), and the output labels (explicit after "->", or numpy's implicit order: the
// ellipsis, then the letters that occur once, alphabetically). Shared by inference and the
// compute rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ingot::ops {

struct EinsumSpec {
  // Labels 0 .. ellipsis_rank - 1 are the ellipsis dims (right-aligned), then the letters.
  int num_labels = 0;
  int ellipsis_rank = 0;
  std::vector<std::vector<int>> inputs;  // a label per dim of each operand
  std::vector<int> output;               // a label per output dim
  std::string canonical;                 // explicit form, no spaces: "bij,bjk->bik"
};

// std::nullopt with *error set when the equation does not fit the operand ranks.
std::optional<EinsumSpec> parse_einsum(const std::string& equation, const std::vector<int>& ranks,
                                       std::string* error);

}  // namespace ingot::ops
