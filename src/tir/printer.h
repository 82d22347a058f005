// Readable, Python-like text of loop IR (TVMScript in spirit), for dumps and printer tests.
// Distinct variables (and buffers) that share a name print with suffixes: i, i_1, i_2.
#pragma once

#include <string>

#include "tir/module.h"

namespace ingot::tir {

std::string to_string(const Expr& e);
std::string to_string(const Stmt& s);
std::string to_string(const PrimFunc& f);
std::string to_string(const IRModule& m);

}  // namespace ingot::tir
