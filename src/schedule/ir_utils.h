// IR helpers shared by the schedule primitives: locating blocks and loops in a block-form body,
// replacing or removing statements by identity, and small rewrites (predicates, buffers).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tir/block_nest.h"
#include "tir/stmt.h"

namespace ingot::schedule {

// Where a block sits: its realize, the loops around it up to the enclosing block (outermost
// first) and the enclosing block (null for the root block itself).
struct BlockInfo {
  tir::Stmt realize;
  const tir::BlockRealize* br = nullptr;
  const tir::Block* block = nullptr;
  std::vector<tir::Stmt> loops;
  const tir::Block* parent = nullptr;
};
// count: how many blocks have this name (0 when not found).
std::optional<BlockInfo> find_block(const tir::Stmt& body, const std::string& name, int* count);

struct LoopInfo {
  tir::Stmt loop;
  const tir::For* node = nullptr;
  std::vector<tir::Stmt> outer;  // enclosing loops up to the enclosing block, outermost first
  const tir::Block* parent = nullptr;
};
std::optional<LoopInfo> find_loop(const tir::Stmt& body, const tir::VarNode* var);

// BlockRealizes under s (through loops and branches, not into nested blocks). When s is a
// BlockRealize its block's body is searched.
std::vector<tir::Stmt> child_block_realizes(const tir::Stmt& s);

// Replaces statements by identity; an undefined replacement removes the statement, and loops,
// branches and sequences left empty disappear with it (an emptied block body becomes a no-op).
using StmtMap = std::unordered_map<const tir::StmtNode*, tir::Stmt>;
tir::Stmt replace_stmts(const tir::Stmt& body, const StmtMap& repl);

// The root block of a schedule's function body.
const tir::Block* root_block(const tir::Stmt& body);
// The root-level statement (a child of the root block body) that contains the given statement.
tir::Stmt top_level_stmt(const BlockInfo& info);
// The root block's body as a list; index of a statement in it (-1 when absent).
std::vector<tir::Stmt> root_seq(const tir::Stmt& body);
int index_in(const std::vector<tir::Stmt>& seq, const tir::Stmt& s);
// Rebuilds the root with a new body sequence and extra allocations (removed ones filtered out).
tir::Stmt rebuild_root(const tir::Stmt& body, std::vector<tir::Stmt> seq,
                       const std::vector<tir::Buffer>& add_alloc = {},
                       const tir::BufferNode* drop_alloc = nullptr);

// ANDs cond into the predicate of every child BlockRealize of s.
tir::Stmt add_predicate(const tir::Stmt& s, const tir::Expr& cond);

// tir/block_nest.h: replace_buffer (every access to a buffer by another) and make_root (the
// root block around a body).
using tir::make_root;
using tir::replace_buffer;

// A block realize under loop (or anywhere in s) binding a reduce iter var to an expression that
// uses var; returns "iter var of block" text for messages, or nullopt.
std::optional<std::string> reduce_use(const tir::Stmt& s, const tir::VarNode* var);

// Whether the function parameter list contains b.
bool is_param(const std::vector<tir::Buffer>& params, const tir::BufferNode* b);

// Whether b is one of f's constant parameters (PrimFunc::constant_params).
bool is_constant_param(const tir::PrimFunc& f, const tir::BufferNode* b);

// A block name not yet used in body, starting from base.
std::string unique_block_name(const tir::Stmt& body, const std::string& base);

}  // namespace ingot::schedule
