// Artifacts with symbolic dims (ABI version 6) built from a hand-made IRModule and run through
// the runtime: the KV-cache shape present = Concat(past, 2 * x) over [past + seq, 4] and a row
// sum over [seq], for every binding the inputs give (the symbols bound from the input shapes,
// kernels called with them, output shapes from the artifact's shape function, output buffers
// growing); bindings outside the bounds, inputs that disagree on a symbol and byte-count inputs
// of a symbolic tensor are refused with one line naming the input.
#include <gtest/gtest.h>

#include <ingot/runtime.hpp>

#include <cstdio>
#include <cstring>

#include "codegen/build.h"
#include "codegen/target.h"
#include "driver/compiled_model.h"
#include "support/npz.h"
#include "tir/module.h"
#include "tir/op.h"
#include "tir/stmt.h"

namespace ingot::testing {
namespace {

using namespace tir;

struct Symbolic {
  Var seq{"seq", DataType::i64()};
  Var past{"past", DataType::i64()};
  IRModule mod;

  Symbolic() {
    Buffer x = Buffer::make("x", DataType::f32(), std::vector<Expr>{seq, i64(4)});
    Buffer y = Buffer::make("y", DataType::f32(), std::vector<Expr>{past, i64(4)});
    Buffer z = Buffer::make("z", DataType::f32(), std::vector<Expr>{past + seq, i64(4)});
    Buffer w = Buffer::make("w", DataType::f32(), std::vector<Expr>{seq});
    Var i("i"), j("j");
    Stmt concat =
        For::make(i, i64(0), past + seq, ForKind::kSerial,
                  For::make(j, i64(0), i64(4), ForKind::kSerial,
                            IfThenElse::make(i < past, BufferStore::make(z, y(i, j), {i, j}),
                                             BufferStore::make(z, x(i - past, j) * 2.0f, {i, j}))));
    Var r("r"), k("k");
    Stmt sum = For::make(r, i64(0), seq, ForKind::kParallel,
                         SeqStmt::make({BufferStore::make(w, make_const(DataType::f32(), 0.0), {r}),
                                        For::make(k, i64(0), i64(4), ForKind::kSerial,
                                                  BufferStore::make(w, w(r) + x(r, k), {r}))}));
    PrimFunc f1{"concat_kv", {x, y, z}, concat};
    f1.shape_vars = {seq, past};
    PrimFunc f2{"row_sum", {x, w}, sum};
    f2.shape_vars = {seq};
    mod.model_name = "symbolic";
    mod.kernels = {f1, f2};
    mod.symbols = {{"seq", 1, 64, seq}, {"past", 0, 128, past}};
    mod.inputs = {TensorDesc{"x", DataType::f32(), {-1, 4}, {"seq", ""}},
                  TensorDesc{"y", DataType::f32(), {-1, 4}, {"past", ""}}};
    mod.outputs = {TensorDesc{"z", DataType::f32(), {-1, 4}, {"past+seq", ""}},
                   TensorDesc{"w", DataType::f32(), {-1}, {"seq"}}};
    mod.outputs[0].shape_exprs = {past + seq, i64(4)};
    mod.outputs[1].shape_exprs = {seq};
    using A = ArgRef;
    mod.entry = {{0, {{A::kInput, 0}, {A::kInput, 1}, {A::kOutput, 0}}},
                 {1, {{A::kInput, 0}, {A::kOutput, 1}}}};
  }
};

class SymbolicArtifact : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (temp_dir("symbolic") / "symbolic.so").string();
    codegen::build_shared_library(Symbolic().mod, codegen::Target::host(), path_);
  }
  std::string path_;
};

TEST_F(SymbolicArtifact, EveryBindingRunsWithItsOwnShapes) {
  rt::Model model(path_);
  EXPECT_EQ(model.input_info(0).shape[0], -1);
  EXPECT_STREQ(model.output_info(0).dim_names[0], "past+seq");
  rt::Session session(model);
  // Growing and shrinking: the output buffers grow when a run needs more, never per kernel.
  for (auto [s, p] : {std::pair<int64_t, int64_t>{1, 0}, {5, 3}, {64, 128}, {2, 7}, {64, 0}}) {
    std::vector<float> x(size_t(s * 4)), y(size_t(p * 4));
    for (size_t n = 0; n < x.size(); ++n) x[n] = float(n) * 0.5f - 3.0f;
    for (size_t n = 0; n < y.size(); ++n) y[n] = 100.0f + float(n);
    std::vector<int64_t> xs{s, 4}, ys{p, 4};
    session.set_input(0, f32_tensor(x, xs));
    session.set_input(1, f32_tensor(y, ys));
    session.run();
    DLTensor z = session.output(0), w = session.output(1);
    ASSERT_EQ(z.ndim, 2);
    EXPECT_EQ(z.shape[0], p + s);
    EXPECT_EQ(z.shape[1], 4);
    ASSERT_EQ(w.ndim, 1);
    EXPECT_EQ(w.shape[0], s);
    const float* zd = static_cast<const float*>(z.data);
    const float* wd = static_cast<const float*>(w.data);
    for (int64_t i = 0; i < p + s; ++i)
      for (int64_t j = 0; j < 4; ++j)
        ASSERT_EQ(zd[i * 4 + j], i < p ? y[size_t(i * 4 + j)] : 2.0f * x[size_t((i - p) * 4 + j)])
            << "seq=" << s << " past=" << p << " at " << i << "," << j;
    for (int64_t r = 0; r < s; ++r) {
      float want = 0;
      for (int64_t k = 0; k < 4; ++k) want += x[size_t(r * 4 + k)];
      ASSERT_EQ(wd[r], want) << "seq=" << s << " row " << r;
    }
  }
}

TEST_F(SymbolicArtifact, BindingsOutsideTheBoundsOrInDisagreementAreRefused) {
  rt::Model model(path_);
  rt::Session session(model);
  std::vector<float> x(65 * 4), y(4 * 4);
  std::vector<int64_t> xs{65, 4}, ys{4, 4};
  session.set_input(0, f32_tensor(x, xs));
  session.set_input(1, f32_tensor(y, ys));
  try {
    session.run();
    FAIL() << "seq=65 ran";
  } catch (const rt::Error& e) {
    EXPECT_STREQ(e.what(),
                 "input 'x': dim 0 ('seq') is 65, outside the bounds [1, 64] the model was "
                 "compiled for");
  }
  std::vector<int64_t> bad{3, 5};
  try {
    session.set_input(0, f32_tensor(x, bad));
    FAIL() << "a static dim of 5 for 4 was accepted";
  } catch (const rt::Error& e) {
    EXPECT_STREQ(e.what(), "input 'x': expected shape [seq,4], got [3,5]");
  }
  try {
    session.set_input_copy(0, x.data(), 16);
    FAIL() << "bytes without a shape were accepted";
  } catch (const rt::Error& e) {
    EXPECT_STREQ(e.what(),
                 "input 'x' has a symbolic dim ('seq'): set it with ingot_session_set_input and a "
                 "DLTensor, which carries its shape");
  }
}

NpyArray floats(const std::string& name, std::vector<int64_t> shape, float offset) {
  NpyArray a{name, "<f4", std::move(shape), {}};
  std::vector<float> v(size_t(a.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = offset + float(i);
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

// `ingot inspect` shows the symbols and the symbolic dims; `ingot run` binds them from the .npz
// shapes and writes outputs of the run's shapes.
TEST_F(SymbolicArtifact, InspectAndRunThroughTheCli) {
  const std::string cli = INGOT_CLI_PATH;
  std::string out = run_command(cli + " inspect '" + path_ + "' 2>&1");
  EXPECT_NE(out.find("x     float32  [seq,4]"), std::string::npos) << out;
  EXPECT_NE(out.find("z     float32  [past+seq,4]"), std::string::npos) << out;
  EXPECT_NE(out.find("symbols:    seq in [1, 64], past in [0, 128]"), std::string::npos) << out;
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  write_npz(dir + "/in.npz", {floats("x", {3, 4}, 0.0f), floats("y", {2, 4}, 50.0f)});
  out = run_command(cli + " run '" + path_ + "' --inputs '" + dir + "/in.npz' --outputs '" + dir +
                    "/out.npz' 2>&1");
  ASSERT_EQ(out, "");
  std::vector<NpyArray> got = read_npz(dir + "/out.npz");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].name, "z");
  EXPECT_EQ(got[0].shape, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(got[1].shape, (std::vector<int64_t>{3}));
  std::vector<float> z(20);
  std::memcpy(z.data(), got[0].data.data(), 80);
  EXPECT_EQ(z[0], 50.0f);   // past rows first
  EXPECT_EQ(z[8], 0.0f);    // then 2 * x
  EXPECT_EQ(z[19], 22.0f);  // 2 * x[2, 3] = 2 * 11
  out = run_command(cli + " run '" + path_ + "' --inputs '" + dir + "/in.npz' 2>&1");
  EXPECT_NE(out.find("z: float32 [5,4]"), std::string::npos) << out;
  write_npz(dir + "/some.npz", {floats("y", {2, 4}, 0.0f)});
  out = run_command(cli + " run '" + path_ + "' --inputs '" + dir + "/some.npz' 2>&1");
  EXPECT_EQ(out,
            "error: input 'x' has a symbolic dim 'seq': give its value in --inputs (the shape "
            "binds the symbol)\n");
}

TEST(SymbolicModule, InputsThatDisagreeOnASymbolNameBoth) {
  // The same symbol in two inputs: x [seq, 4] and x2 [seq, 4].
  Symbolic s;
  s.mod.inputs[1] = TensorDesc{"x2", DataType::f32(), {-1, 4}, {"seq", ""}};
  s.mod.symbols = {{"seq", 1, 64, s.seq}};
  s.mod.kernels = {s.mod.kernels[1]};
  s.mod.outputs = {s.mod.outputs[1]};
  s.mod.entry = {{0, {{ArgRef::kInput, 1}, {ArgRef::kOutput, 0}}}};
  std::string path = (temp_dir("symbolic_pair") / "pair.so").string();
  codegen::build_shared_library(s.mod, codegen::Target::host(), path);
  rt::Model model(path);
  rt::Session session(model);
  std::vector<float> a(3 * 4, 1.0f), b(2 * 4, 1.0f);
  std::vector<int64_t> as{3, 4}, bs{2, 4};
  session.set_input(0, f32_tensor(a, as));
  session.set_input(1, f32_tensor(b, bs));
  try {
    session.run();
    FAIL() << "seq = 3 and 2 ran";
  } catch (const rt::Error& e) {
    EXPECT_STREQ(e.what(), "input 'x2': dim 0 ('seq') is 2, but input 'x' has 'seq' = 3");
  }
  session.set_input(1, f32_tensor(a, as));
  session.run();
  EXPECT_EQ(session.output(0).shape[0], 3);
}

}  // namespace
}  // namespace ingot::testing
