// AMX tile micro-kernels: names, description and implementation (see amx_tile.h).
#include "schedule/intrin/amx_tile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "schedule/intrin/dot_tile.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

constexpr int kTileRows = 16, kTileColumns = 16, kRegisters = 8;

// The 16-row tiles that hold `mr` rows.
int row_tiles(int mr) {
  return (mr + kTileRows - 1) / kTileRows;
}

// The matmul tile's description as a dot spec over i, j, k (steps), g: A[i, k * G + g],
// Bp[0, k, j, g], C[i, j].
FmaTileSpec matmul_dot_spec(const AmxTileSpec& s) {
  const int group = s.bf16 ? 2 : 4;
  FmaTileSpec dot;
  dot.mr = s.mr, dot.nr = s.nr, dot.k = {s.steps, group};
  dot.group = group, dot.bf16 = s.bf16, dot.amx = true;
  dot.a.dims = {{1, 0, 0, 0}, {0, 0, group, 1}};
  dot.b.dims = {{0, 0, 0, 0}, {0, 0, 1, 0}, {0, 1, 0, 0}, {0, 0, 0, 1}};
  dot.c.dims = {{1, 0, 0, 0}, {0, 1, 0, 0}};
  return dot;
}

Expr effect(Intrinsic op, std::vector<Expr> args) {
  return Call::make(op, std::move(args));
}

Expr tile_id(int t) {
  return IntImm::make(DataType::i32(), t);
}

}  // namespace

std::string amx_tile_problem(const AmxTileSpec& s) {
  if (s.nr < kTileColumns) return "columns must be 16, 32 or 48";
  if (s.steps < kTileRows || s.steps % kTileRows != 0)
    return "the depth must be whole tiles (steps a multiple of 16)";
  return amx_dot_tile_problem(matmul_dot_spec(s));
}

std::string amx_tile_name(const AmxTileSpec& s) {
  return s.bf16 ? fmt::format("x86_amx_dot_bf16_{}x{}_k{}", s.mr, s.nr, s.steps)
                : fmt::format("x86_amx_dot_u8i8_g4_{}x{}_k{}", s.mr, s.nr, s.steps);
}

std::optional<AmxTileSpec> parse_amx_tile_name(const std::string& name) {
  AmxTileSpec s;
  long long steps = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "x86_amx_dot_u8i8_g4_%dx%d_k%lld%n", &s.mr, &s.nr, &steps, &used) ==
          3 &&
      size_t(used) == name.size()) {
    s.bf16 = false;
  } else if (used = 0, std::sscanf(name.c_str(), "x86_amx_dot_bf16_%dx%d_k%lld%n", &s.mr, &s.nr,
                                   &steps, &used) == 3 &&
                           size_t(used) == name.size()) {
    s.bf16 = true;
  } else {
    return std::nullopt;
  }
  s.steps = steps;
  if (!amx_tile_problem(s).empty() || amx_tile_name(s) != name) return std::nullopt;
  return s;
}

std::string amx_dot_tile_problem(const FmaTileSpec& s) {
  if (s.arch != CpuVectorIsa::kX86 || s.lanes != 16) return "AMX tiles are x86 with 16 lanes";
  if (!s.bf16 && (s.group != 4 || s.a_signed))
    return "AMX tiles multiply uint8 x int8 quads or bfloat16 pairs";
  if (s.col_blocks != 1) return "an AMX tile takes one column block";
  if (s.mr < 1 || s.mr > 2 * kTileRows || s.nr % kTileColumns != 0 || s.nr > 3 * kTileColumns)
    return "AMX tiles take 1 to 32 rows and 16, 32 or 48 columns";
  const int tm = row_tiles(s.mr), tn = s.nr / kTileColumns;
  if (tm * tn + tm + tn > kRegisters) return "more than 8 tiles";
  const size_t n = s.k.size();
  if (n < 2) return "an AMX tile needs a reduction variable beside the group";
  const int64_t q = s.k[n - 2];
  if (q > kTileRows && q % kTileRows != 0) return "A's row groups must be at most 16 or whole 16s";
  // The row groups' variable (coefficient row n: i, j, then k0 ..): G along A's last dimension
  // and nowhere else in A (a tile row is contiguous); not beside j in B.
  for (size_t d = 0; d < s.a.dims.size(); ++d)
    if (s.a.dims[d][n] != (d + 1 == s.a.dims.size() ? s.group : 0))
      return "A's row groups must be its last dimension, G apart";
  if (s.b.dims[s.b.dims.size() - 2][n] != 0) return "B's row groups must not be beside j";
  return "";
}

PrimFunc amx_dot_tile_impl(const FmaTileSpec& s, const std::string& name, const Buffer& A,
                           const Buffer& B, const Buffer& C) {
  const std::string problem = amx_dot_tile_problem(s);
  INGOT_ICHECK(problem.empty(), "AMX dot tile {}: {}", name, problem);
  const size_t n = s.k.size();
  const int64_t q = s.k[n - 2], chunk = std::min<int64_t>(q, kTileRows);
  // Tiles: C (i, j) = i * tn + j, then A's row tiles, then B's column tiles.
  const int tm = row_tiles(s.mr), tn = s.nr / kTileColumns;
  auto c_tile = [&](int i, int j) { return i * tn + j; };
  auto a_tile = [&](int i) { return tm * tn + i; };
  auto b_tile = [&](int j) { return tm * tn + tm + j; };
  auto rows_of = [&](int i) { return std::min(kTileRows, s.mr - i * kTileRows); };
  std::vector<Expr> config(2 * kRegisters, tile_id(0));
  auto shape = [&](int t, int64_t rows, int64_t bytes) {
    config[size_t(2 * t)] = tile_id(int(rows));
    config[size_t(2 * t + 1)] = tile_id(int(bytes));
  };
  for (int i = 0; i < tm; ++i) {
    for (int j = 0; j < tn; ++j) shape(c_tile(i, j), rows_of(i), 4 * kTileColumns);
    shape(a_tile(i), rows_of(i), 4 * chunk);  // chunk groups of 4 bytes
  }
  for (int j = 0; j < tn; ++j) shape(b_tile(j), chunk, 4 * kTileColumns);
  // Tile variable values i, j, k0 .. (the row groups' variable at n, the group at n + 1 is 0).
  std::vector<Var> outer;
  for (size_t k = 0; k + 2 < n; ++k) outer.emplace_back(fmt::format("k{}", k));
  Var kc("kc");
  auto at = [&](int64_t i, int64_t j, bool reduction) {
    std::vector<Expr> v = {i64(i), i64(j)};
    for (const Var& k : outer) v.push_back(reduction ? Expr(k) : i64(0));
    v.push_back(reduction ? kc * chunk : i64(0));
    v.push_back(i64(0));
    return v;
  };
  // An effect on tile t whose rows start at vars `first`; `next` steps the variable whose next
  // value is the tile's next row (the same element where the tile has one row).
  auto rows_at = [&](Intrinsic op, int t, const Buffer& buf, const FmaOperand& o,
                     std::vector<Expr> first, size_t next, bool one_row) {
    Expr a = buf.load(fma_operand_index(o, first));
    Expr b = a;
    if (!one_row) {
      first[next] = first[next] + i64(1);
      b = buf.load(fma_operand_index(o, first));
    }
    return Evaluate::make(effect(op, {tile_id(t), a, b}));
  };
  std::vector<Stmt> load_c, step, store_c;
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn; ++j) {
      auto c_at = at(int64_t(i) * kTileRows, int64_t(j) * kTileColumns, false);
      load_c.push_back(
          rows_at(Intrinsic::amx_tile_load, c_tile(i, j), C, s.c, c_at, 0, rows_of(i) == 1));
      store_c.push_back(
          rows_at(Intrinsic::amx_tile_store, c_tile(i, j), C, s.c, c_at, 0, rows_of(i) == 1));
    }
  for (int i = 0; i < tm; ++i)
    step.push_back(rows_at(Intrinsic::amx_tile_load, a_tile(i), A, s.a,
                           at(int64_t(i) * kTileRows, 0, true), 0, rows_of(i) == 1));
  for (int j = 0; j < tn; ++j)
    step.push_back(rows_at(Intrinsic::amx_tile_load, b_tile(j), B, s.b,
                           at(0, int64_t(j) * kTileColumns, true), n, chunk == 1));
  const Intrinsic dot = s.bf16 ? Intrinsic::amx_dot_bf16 : Intrinsic::amx_dot_u8i8;
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn; ++j)
      step.push_back(Evaluate::make(
          effect(dot, {tile_id(c_tile(i, j)), tile_id(a_tile(i)), tile_id(b_tile(j))})));
  Stmt loop = For::make(kc, i64(0), i64(q / chunk), ForKind::kSerial, SeqStmt::make(step));
  for (size_t k = outer.size(); k-- > 0;)
    loop = For::make(outer[k], i64(0), i64(s.k[k]), ForKind::kSerial, loop);
  return PrimFunc{name,
                  {A, B, C},
                  SeqStmt::make({Evaluate::make(effect(Intrinsic::amx_tile_config, config)),
                                 SeqStmt::make(load_c), loop, SeqStmt::make(store_c),
                                 Evaluate::make(effect(Intrinsic::amx_tile_release, {}))})};
}

TensorIntrin make_amx_tile_intrin(const AmxTileSpec& s) {
  const std::string problem = amx_tile_problem(s);
  INGOT_ICHECK(problem.empty(), "AMX tile spec {}: {}", amx_tile_name(s), problem);
  const int group = s.bf16 ? 2 : 4;
  TensorIntrin in;
  in.name = amx_tile_name(s);
  const FmaTileSpec dot = matmul_dot_spec(s);
  in.desc = s.bf16 ? dot_tile_description(in.name, DataType::bf16(), DataType::bf16(),
                                          DataType::f32(), group, s.mr, s.nr, s.steps)
                   : dot_tile_description(in.name, DataType::u8(), DataType::i8(), DataType::i32(),
                                          group, s.mr, s.nr, s.steps);
  in.impl = amx_dot_tile_impl(dot, in.name + "_impl", in.desc.params[0], in.desc.params[1],
                              in.desc.params[2]);
  return in;
}

}  // namespace ingot::schedule
