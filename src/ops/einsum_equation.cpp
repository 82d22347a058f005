// Parsing of Einsum equations (see einsum_equation.h).
#include "ops/einsum_equation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace ingot::ops {

namespace {

struct Term {
  std::string letters;  // in order, with '.' standing for the ellipsis (at most one)
  bool ellipsis = false;
};

bool parse_term(const std::string& s, Term* t, std::string* error) {
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "...") == 0) {
      if (t->ellipsis) {
        *error = fmt::format("term '{}' has more than one ellipsis", s);
        return false;
      }
      t->ellipsis = true;
      t->letters.push_back('.');
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t->letters.push_back(s[i++]);
    } else {
      *error = fmt::format("term '{}' has an invalid character '{}'", s, s[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<EinsumSpec> parse_einsum(const std::string& equation, const std::vector<int>& ranks,
                                       std::string* error) {
  std::string eq;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) eq.push_back(c);
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    Term t;
    if (!parse_term(lhs.substr(start, comma == std::string::npos ? comma : comma - start), &t,
                    error))
      return std::nullopt;
    terms.push_back(t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ranks.size()) {
    *error = fmt::format("equation '{}' has {} operand terms but the node has {} inputs", equation,
                         terms.size(), ranks.size());
    return std::nullopt;
  }
  EinsumSpec spec;
  bool any_ellipsis = false;
  for (size_t i = 0; i < terms.size(); ++i) {
    int explicit_dims = int(terms[i].letters.size()) - (terms[i].ellipsis ? 1 : 0);
    int e = ranks[i] - explicit_dims;
    if (e < 0 || (!terms[i].ellipsis && e != 0)) {
      *error = fmt::format("term {} of equation '{}' does not match the rank {} of input {}", i,
                           equation, ranks[i], i);
      return std::nullopt;
    }
    any_ellipsis = any_ellipsis || terms[i].ellipsis;
    spec.ellipsis_rank = std::max(spec.ellipsis_rank, e);
  }
  std::map<char, int> label_of, count;
  int next = spec.ellipsis_rank;
  for (size_t i = 0; i < terms.size(); ++i) {
    std::vector<int> labels;
    int e = ranks[i] - (int(terms[i].letters.size()) - (terms[i].ellipsis ? 1 : 0));
    for (char c : terms[i].letters) {
      if (c == '.') {
        for (int k = spec.ellipsis_rank - e; k < spec.ellipsis_rank; ++k) labels.push_back(k);
        continue;
      }
      if (!label_of.count(c)) label_of[c] = next++;
      ++count[c];
      labels.push_back(label_of[c]);
    }
    spec.inputs.push_back(labels);
  }
  spec.num_labels = next;
  std::string rhs;
  if (arrow != std::string::npos) {
    rhs = eq.substr(arrow + 2);
    Term t;
    if (!parse_term(rhs, &t, error)) return std::nullopt;
    std::string seen;
    for (char c : t.letters) {
      if (c == '.') {
        for (int k = 0; k < spec.ellipsis_rank; ++k) spec.output.push_back(k);
        continue;
      }
      if (!label_of.count(c)) {
        *error = fmt::format("output label '{}' of equation '{}' is not in any input", c, equation);
        return std::nullopt;
      }
      if (seen.find(c) != std::string::npos) {
        *error = fmt::format("output label '{}' of equation '{}' is repeated", c, equation);
        return std::nullopt;
      }
      seen.push_back(c);
      spec.output.push_back(label_of[c]);
    }
  } else {
    if (any_ellipsis) rhs = "...";
    for (int k = 0; k < spec.ellipsis_rank; ++k) spec.output.push_back(k);
    for (auto [c, n] : count)  // std::map: ascending character codes, as numpy
      if (n == 1) {
        rhs.push_back(c);
        spec.output.push_back(label_of[c]);
      }
  }
  spec.canonical = lhs + "->" + rhs;
  return spec;
}

}  // namespace ingot::ops
