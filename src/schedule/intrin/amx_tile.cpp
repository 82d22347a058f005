// AMX tile micro-kernels: names, description and implementation (see amx_tile.h).
#include "schedule/intrin/amx_tile.h"

#include <fmt/format.h>

#include <cstdio>

#include "schedule/intrin/dot_tile.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::schedule {

using namespace tir;

namespace {

constexpr int kTileRows = 16, kTileColumns = 16, kRegisters = 8;

int row_tiles(const AmxTileSpec& s) {
  return (s.mr + kTileRows - 1) / kTileRows;
}

Expr effect(Intrinsic op, std::vector<Expr> args) {
  return Call::make(op, std::move(args));
}

Expr tile_id(int t) {
  return IntImm::make(DataType::i32(), t);
}

}  // namespace

std::string amx_tile_problem(const AmxTileSpec& s) {
  if (s.mr < 1 || s.mr > 2 * kTileRows) return "rows must be 1 to 32";
  if (s.nr < kTileColumns || s.nr % kTileColumns != 0 || s.nr > 3 * kTileColumns)
    return "columns must be 16, 32 or 48";
  if (s.steps < kTileRows || s.steps % kTileRows != 0)
    return "the depth must be whole tiles (steps a multiple of 16)";
  const int tm = row_tiles(s), tn = s.nr / kTileColumns;
  if (tm * tn + tm + tn > kRegisters) return "more than 8 tiles";
  return "";
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

TensorIntrin make_amx_tile_intrin(const AmxTileSpec& s) {
  const std::string problem = amx_tile_problem(s);
  INGOT_ICHECK(problem.empty(), "AMX tile spec {}: {}", amx_tile_name(s), problem);
  const int group = s.bf16 ? 2 : 4;
  TensorIntrin in;
  in.name = amx_tile_name(s);
  in.desc = s.bf16 ? dot_tile_description(in.name, DataType::bf16(), DataType::bf16(),
                                          DataType::f32(), group, s.mr, s.nr, s.steps)
                   : dot_tile_description(in.name, DataType::u8(), DataType::i8(), DataType::i32(),
                                          group, s.mr, s.nr, s.steps);
  const Buffer A = in.desc.params[0], B = in.desc.params[1], C = in.desc.params[2];
  // Tiles: C (i, j) = i * tn + j, then A's row tiles, then B's column tiles.
  const int tm = row_tiles(s), tn = s.nr / kTileColumns;
  auto c_tile = [&](int i, int j) { return i * tn + j; };
  auto a_tile = [&](int i) { return tm * tn + i; };
  auto b_tile = [&](int j) { return tm * tn + tm + j; };
  auto rows_of = [&](int i) { return std::min(kTileRows, s.mr - i * kTileRows); };
  std::vector<Expr> config(2 * kRegisters, tile_id(0));
  auto shape = [&](int t, int rows) {
    config[size_t(2 * t)] = tile_id(rows);
    config[size_t(2 * t + 1)] = tile_id(64);
  };
  for (int i = 0; i < tm; ++i) {
    for (int j = 0; j < tn; ++j) shape(c_tile(i, j), rows_of(i));
    shape(a_tile(i), rows_of(i));
  }
  for (int j = 0; j < tn; ++j) shape(b_tile(j), kTileRows);
  // A row tile's rows from element (16 i, col) of a 2-D buffer: the next row's element gives
  // the stride (the same element where the tile has one row: no stride is read).
  auto rows_at = [&](Intrinsic op, int t, const Buffer& buf, int i, Expr col) {
    const int64_t r0 = int64_t(i) * kTileRows;
    Expr first = buf.load({i64(r0), col});
    Expr second = rows_of(i) > 1 ? buf.load({i64(r0 + 1), col}) : first;
    return Evaluate::make(effect(op, {tile_id(t), first, second}));
  };
  std::vector<Stmt> load_c, step, store_c;
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn; ++j) {
      load_c.push_back(
          rows_at(Intrinsic::amx_tile_load, c_tile(i, j), C, i, i64(j * kTileColumns)));
      store_c.push_back(
          rows_at(Intrinsic::amx_tile_store, c_tile(i, j), C, i, i64(j * kTileColumns)));
    }
  // Per 64 bytes of depth (16 steps of G): A's row tiles, B's column tiles, the products.
  Var kb("kb");
  const int64_t a_elems = 64 / (s.bf16 ? 2 : 1);  // A's elements in a tile row
  for (int i = 0; i < tm; ++i)
    step.push_back(rows_at(Intrinsic::amx_tile_load, a_tile(i), A, i, kb * a_elems));
  for (int j = 0; j < tn; ++j) {
    Expr first = B.load({i64(0), kb * kTileRows, i64(j * kTileColumns), i64(0)});
    Expr second = B.load({i64(0), kb * kTileRows + 1, i64(j * kTileColumns), i64(0)});
    step.push_back(
        Evaluate::make(effect(Intrinsic::amx_tile_load, {tile_id(b_tile(j)), first, second})));
  }
  const Intrinsic dot = s.bf16 ? Intrinsic::amx_dot_bf16 : Intrinsic::amx_dot_u8i8;
  for (int i = 0; i < tm; ++i)
    for (int j = 0; j < tn; ++j)
      step.push_back(Evaluate::make(
          effect(dot, {tile_id(c_tile(i, j)), tile_id(a_tile(i)), tile_id(b_tile(j))})));
  Stmt loop =
      For::make(kb, i64(0), i64(s.steps / kTileRows), ForKind::kSerial, SeqStmt::make(step));
  in.impl = PrimFunc{in.name + "_impl",
                     {A, B, C},
                     SeqStmt::make({Evaluate::make(effect(Intrinsic::amx_tile_config, config)),
                                    SeqStmt::make(load_c), loop, SeqStmt::make(store_c),
                                    Evaluate::make(effect(Intrinsic::amx_tile_release, {}))})};
  return in;
}

}  // namespace ingot::schedule
