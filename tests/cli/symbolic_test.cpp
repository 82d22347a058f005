// Models compiled with symbolic dims kept (--dim-bounds, docs/dynamic-shapes.md): one artifact
// run at several bindings against NumPy closed forms, the bounds enforced at run time, and the
// option's errors (one line, non-zero exit, no output file).
#include <filesystem>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class SymbolicTest : public CliTest {
 protected:
  // d/attn.onnx: one attention step over a cache, with symbolic `seq` and `past`:
  //   k = Concat(past, x @ Wk) on axis 1       [1, past+seq, 8]
  //   s = Softmax(x @ k^T / 2 + causal mask)   [1, seq, past+seq], the mask from Range/Shape
  //   y = s @ k, last = y[:, -1:, :], m = ReduceMean(k, axis 1)
  // The mask: position i of seq (absolute past + i) sees keys j <= past + i.
  void write_attention() {
    ASSERT_EQ(
        python("import onnx\nfrom onnx import helper as h, TensorProto as T, numpy_helper as nh\n"
               "rng = np.random.default_rng(1)\n"
               "Wk = rng.standard_normal((8, 8)).astype(np.float32)\n"
               "I = lambda n, v: nh.from_array(np.array(v, dtype=np.int64), n)\n"
               "nodes = [\n"
               "  h.make_node('MatMul', ['x', 'Wk'], ['xk']),\n"
               "  h.make_node('Concat', ['past', 'xk'], ['k'], axis=1),\n"
               "  h.make_node('Transpose', ['k'], ['kt'], perm=[0, 2, 1]),\n"
               "  h.make_node('MatMul', ['x', 'kt'], ['qk']),\n"
               "  h.make_node('Div', ['qk', 'two'], ['sc']),\n"
               "  h.make_node('Shape', ['x'], ['xs']),\n"
               "  h.make_node('Shape', ['past'], ['ps']),\n"
               "  h.make_node('Gather', ['xs', 'one'], ['seq'], axis=0),\n"
               "  h.make_node('Gather', ['ps', 'one'], ['pl'], axis=0),\n"
               "  h.make_node('Add', ['seq', 'pl'], ['total']),\n"
               "  h.make_node('Range', ['zero', 'seq', 'one'], ['qi']),\n"
               "  h.make_node('Add', ['qi', 'pl'], ['qpos']),\n"
               "  h.make_node('Unsqueeze', ['qpos', 'ax1'], ['qcol']),\n"
               "  h.make_node('Range', ['zero', 'total', 'one'], ['kpos']),\n"
               "  h.make_node('LessOrEqual', ['kpos', 'qcol'], ['vis']),\n"
               "  h.make_node('Where', ['vis', 'zf', 'neg'], ['mask']),\n"
               "  h.make_node('Add', ['sc', 'mask'], ['masked']),\n"
               "  h.make_node('Softmax', ['masked'], ['s'], axis=-1),\n"
               "  h.make_node('MatMul', ['s', 'k'], ['y']),\n"
               "  h.make_node('Slice', ['y', 'm1', 'big', 'ax1'], ['last']),\n"
               "  h.make_node('ReduceMean', ['k'], ['m'], axes=[1], keepdims=0),\n"
               "]\n"
               "inits = [nh.from_array(Wk, 'Wk'), nh.from_array(np.float32(2), 'two'),\n"
               "         I('one', 1), I('zero', 0), I('ax1', [1]), I('m1', [-1]),\n"
               "         I('big', [2**62]), nh.from_array(np.float32(0), 'zf'),\n"
               "         nh.from_array(np.float32(-1e9), 'neg')]\n"
               "g = h.make_graph(nodes, 'attn',\n"
               "  [h.make_tensor_value_info('x', T.FLOAT, [1, 'seq', 8]),\n"
               "   h.make_tensor_value_info('past', T.FLOAT, [1, 'past', 8])],\n"
               "  [h.make_tensor_value_info(n, T.FLOAT, None) for n in ('k', 'y', 'last', 'm')],\n"
               "  inits)\n"
               "onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), d + "
               "'/attn.onnx')\n"
               "np.save(d + '/Wk.npy', Wk)\n"),
        0);
  }

  // Runs d/attn.so at (seq, past) and checks every output against NumPy.
  void check_attention(int seq, int past) {
    ASSERT_EQ(python("rng = np.random.default_rng(" + std::to_string(seq * 100 + past) +
                     ")\n"
                     "np.savez(d + '/in.npz', x=rng.standard_normal((1, " +
                     std::to_string(seq) + ", 8)).astype(np.float32),\n" +
                     "         past=rng.standard_normal((1, " + std::to_string(past) +
                     ", 8)).astype(np.float32))\n"),
              0);
    auto r = ingot("run " + path("attn.so") + " --inputs " + path("in.npz") + " --outputs " +
                   path("out.npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(python("i = np.load(d + '/in.npz'); o = np.load(d + '/out.npz')\n"
                     "x, past = i['x'].astype(np.float64), i['past'].astype(np.float64)\n"
                     "Wk = np.load(d + '/Wk.npy').astype(np.float64)\n"
                     "k = np.concatenate([past, x @ Wk], axis=1)\n"
                     "seq, P = x.shape[1], past.shape[1]\n"
                     "vis = np.arange(P + seq)[None, :] <= (np.arange(seq) + P)[:, None]\n"
                     "sc = x @ k.transpose(0, 2, 1) / 2 + np.where(vis, 0, -1e9)\n"
                     "e = np.exp(sc - sc.max(-1, keepdims=True))\n"
                     "y = (e / e.sum(-1, keepdims=True)) @ k\n"
                     "want = {'k': k, 'y': y, 'last': y[:, -1:, :], 'm': k.mean(1)}\n"
                     "for n, w in want.items():\n"
                     "    got = o[n]\n"
                     "    assert got.shape == w.shape, (n, got.shape, w.shape)\n"
                     "    assert np.allclose(got, w, rtol=1e-4, atol=1e-5), (n, abs(got - "
                     "w).max())\n"),
              0)
        << "seq=" << seq << " past=" << past;
  }
};

TEST_F(SymbolicTest, OneArtifactServesEveryBindingWithinTheBounds) {
  write_attention();
  auto r = ingot("compile " + path("attn.onnx") + " -o " + path("attn.so") +
                 " --dim-bounds 'seq:1..16 past:0..31'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (auto [seq, past] : {std::pair{4, 0}, {1, 1}, {1, 31}, {16, 31}, {7, 5}, {16, 0}, {3, 9}})
    check_attention(seq, past);
  r = ingot("inspect " + path("attn.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("seq"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("past+seq"), std::string::npos) << r.out;
  // The memory plan is a function of the symbols (ABI 7): the artifact's workspace_fn gives
  // workspace_bytes at the bounds and less at shorter lengths, growing with each symbol.
  EXPECT_EQ(python("import ctypes as c\n"
                   "lib = c.CDLL(d + '/attn.so')\n"
                   "a = c.cast(c.addressof(c.c_char.in_dll(lib, 'ingot_artifact_v1')), "
                   "c.POINTER(c.c_uint64))\n"
                   "bound = a[64 // 8]\n"
                   "fn = c.CFUNCTYPE(c.c_int32, c.POINTER(c.c_int64), c.POINTER(c.c_uint64))("
                   "a[144 // 8])\n"
                   "def ws(seq, past):\n"
                   "  out = c.c_uint64(0)\n"
                   "  assert fn((c.c_int64 * 2)(seq, past), c.byref(out)) == 0\n"
                   "  return out.value\n"
                   "print(bound, ws(1, 0), ws(16, 31))\n"
                   "assert ws(16, 31) == bound and ws(1, 0) < bound / 4, (bound, ws(1, 0))\n"
                   "assert ws(1, 0) <= ws(4, 0) <= ws(4, 9) <= ws(16, 9) and ws(2, 0) % 64 == 0\n"),
            0);
}

// Attention scores Q K^T with both Transposes folded into the MatMul (perm_a, perm_b): the
// symbolic product's dot form (B read along k), several rows per column. A regression test:
// the first dot form kept its rows in a loop inside the row block, where the row-reduction rule
// summed every row into the last one.
TEST_F(SymbolicTest, TransposedOperandsOverSymbolicRowsAndColumns) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper as h, TensorProto as T\n"
                   "nodes = [h.make_node('Transpose', ['q'], ['qt'], perm=[0, 2, 1, 3]),\n"
                   "         h.make_node('Transpose', ['k'], ['kt'], perm=[0, 1, 3, 2]),\n"
                   "         h.make_node('MatMul', ['qt', 'kt'], ['y'])]\n"
                   "g = h.make_graph(nodes, 'qk',\n"
                   "  [h.make_tensor_value_info('q', T.FLOAT, [1, 'seq', 4, 16]),\n"
                   "   h.make_tensor_value_info('k', T.FLOAT, [1, 4, 'tot', 16])],\n"
                   "  [h.make_tensor_value_info('y', T.FLOAT, None)])\n"
                   "onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), d + "
                   "'/qk.onnx')\n"),
            0);
  auto r = ingot("compile " + path("qk.onnx") + " -o " + path("qk.so") +
                 " --dim-bounds 'seq:1..8 tot:1..16'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (auto [seq, tot] : {std::pair{3, 5}, {1, 16}, {8, 1}}) {
    ASSERT_EQ(
        python("rng = np.random.default_rng(3)\n"
               "np.savez(d + '/qk.npz', q=rng.standard_normal((1, " +
               std::to_string(seq) + ", 4, 16)).astype(np.float32), k=rng.standard_normal((1, 4, " +
               std::to_string(tot) + ", 16)).astype(np.float32))\n"),
        0);
    r = ingot("run " + path("qk.so") + " --inputs " + path("qk.npz") + " --outputs " +
              path("y.npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(python("i = np.load(d + '/qk.npz'); y = np.load(d + '/y.npz')['y']\n"
                     "want = i['q'].transpose(0, 2, 1, 3) @ i['k'].transpose(0, 1, 3, 2)\n"
                     "assert y.shape == want.shape, y.shape\n"
                     "assert np.allclose(y, want, rtol=1e-5, atol=1e-5), abs(y - want).max()\n"),
              0)
        << "seq=" << seq << " tot=" << tot;
  }
}

// Gemm over a symbolic row count: 200 columns (not whole panels of 16, 32 or 64) and a bias row,
// at row counts that leave every tail of the row tiles. With a constant weight rule
// symbolic_rows_matmul takes it (alpha 0.5 folded into the weight, beta 2 scaling the bias row;
// or B transposed); with the weight a run-time input ("runtime") the row form, its rows in
// parallel.
TEST_F(SymbolicTest, GemmOverSymbolicRowsWithPartialPanelsAndRowTails) {
  for (const char* attrs : {"alpha=0.5, beta=2.0", "alpha=1.0, beta=1.0", "transB=1", "runtime"}) {
    const std::string a = attrs;
    const bool runtime = a == "runtime";
    ASSERT_EQ(python("import onnx\nfrom onnx import helper as h, TensorProto as T, numpy_helper "
                     "as nh\n"
                     "rng = np.random.default_rng(4)\n"
                     "W = rng.standard_normal((24, 200)).astype(np.float32)\n"
                     "C = rng.standard_normal((200,)).astype(np.float32)\n"
                     "np.save(d + '/W.npy', W); np.save(d + '/C.npy', C)\n"
                     "t = " +
                     std::string(a == "transB=1" ? "True" : "False") +
                     "\n"
                     "runtime = " +
                     std::string(runtime ? "True" : "False") +
                     "\n"
                     "g = h.make_graph([h.make_node('Gemm', ['x', 'W', 'C'], ['y'], " +
                     (runtime ? std::string() : a) +
                     ")], "
                     "'g',\n"
                     "  [h.make_tensor_value_info('x', T.FLOAT, ['rows', 24])] +\n"
                     "  ([h.make_tensor_value_info('W', T.FLOAT, [24, 200])] if runtime else []),\n"
                     "  [h.make_tensor_value_info('y', T.FLOAT, None)],\n"
                     "  ([] if runtime else [nh.from_array(W.T.copy() if t else W, 'W')]) +\n"
                     "  [nh.from_array(C, 'C')])\n"
                     "onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), d + "
                     "'/gemm.onnx')\n"),
              0);
    auto r = ingot("compile " + path("gemm.onnx") + " -o " + path("gemm.so") +
                   " --dim-bounds rows:1..16");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string scale = a.starts_with("alpha=0.5") ? "0.5 * x @ W + 2.0 * C" : "x @ W + C";
    // Every row count in one `ingot run --batch`: the inputs written, run and checked at once.
    const std::string counts = "[1, 2, 3, 4, 5, 7, 8, 13, 16]";
    ASSERT_EQ(
        python("rng = np.random.default_rng(5)\n"
               "with open(d + '/runs.txt', 'w') as f:\n"
               "  for rows in " +
               counts +
               ":\n"
               "    x = rng.standard_normal((rows, 24)).astype(np.float32)\n"
               "    np.savez(d + f'/x{rows}.npz', x=x" +
               (runtime ? ", W=np.load(d + '/W.npy')" : "") +
               ")\n"
               "    print(f'" +
               path("gemm.so") + " --inputs {d}/x{rows}.npz --outputs {d}/y{rows}.npz', file=f)\n"),
        0);
    r = ingot("run --batch " + path("runs.txt"));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(
        python(
            "W = np.load(d + '/W.npy'); C = np.load(d + '/C.npy')\n"
            "for rows in " +
            counts +
            ":\n"
            "  x = np.load(d + f'/x{rows}.npz')['x']; y = np.load(d + f'/y{rows}.npz')['y']\n"
            "  want = " +
            scale +
            "\n"
            "  assert y.shape == want.shape, (rows, y.shape)\n"
            "  assert np.allclose(y, want, rtol=1e-5, atol=1e-5), (rows, abs(y - want).max())\n"),
        0)
        << attrs;
  }
}

TEST_F(SymbolicTest, BindingsOutsideTheBoundsAreRefusedNamingTheInput) {
  write_attention();
  auto r = ingot("compile " + path("attn.onnx") + " -o " + path("attn.so") +
                 " --dim-bounds seq:1..16,past:0..31");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(python("np.savez(d + '/big.npz', x=np.zeros((1, 17, 8), np.float32),\n"
                   "         past=np.zeros((1, 2, 8), np.float32))\n"),
            0);
  r = ingot("run " + path("attn.so") + " --inputs " + path("big.npz"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("'x'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("seq"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("16"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(SymbolicTest, DimBoundsErrors) {
  write_attention();
  struct Case {
    std::string bounds, target, want;
  };
  const Case cases[] = {
      {"seq:1..16", "llvm",
       "error: input 'past' has unbound dimension 'past'; bind it with --input-shapes "
       "past:[1,1,8], or keep it symbolic with --dim-bounds past:1..MAX (llvm target)\n"},
      {"seq:1..16 past:0..8 len:1..4", "llvm",
       "error: --dim-bounds: 'len' is not a symbolic dimension of the model's inputs (symbols: "
       "seq, past)\n"},
      {"seq:4..2", "llvm",
       "error: --dim-bounds: 'seq:4..2' has its lower bound 4 above its upper bound 2\n"},
      {"seq=1..4", "llvm",
       "error: --dim-bounds: expected NAME:LO..HI (e.g. seq:1..1024), got 'seq=1..4'\n"},
      {"seq:1..x", "llvm",
       "error: --dim-bounds: bound 'x' in 'seq:1..x' is not a non-negative "
       "integer\n"},
      {"seq:1..4 seq:1..8", "llvm", "error: --dim-bounds: symbol 'seq' is given twice\n"},
  };
  for (const Case& c : cases) {
    std::filesystem::remove(path("attn.so"));
    auto r = ingot("compile " + path("attn.onnx") + " -o " + path("attn.so") + " --target " +
                   c.target + " --dim-bounds '" + c.bounds + "'");
    EXPECT_EQ(r.exit_code, 1) << c.bounds;
    EXPECT_EQ(r.err, c.want) << c.bounds;
    EXPECT_FALSE(std::filesystem::exists(path("attn.so"))) << c.bounds;
  }
  // ingot tune measures its tasks at one shape: symbolic dims must be bound there.
  auto r = ingot("tune " + path("attn.onnx") + " --trials 1 -o " + path("records.json"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: input 'x' has unbound dimension 'seq'; bind it with --input-shapes "
            "x:[1,1,8]\n");
  r = ingot("compile " + path("attn.onnx") + " -o " + path("attn.tar") +
            " --target c --output-format mlf --dim-bounds seq:1..4,past:0..4");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unbound dimension 'seq'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("attn.tar")));
}

}  // namespace
}  // namespace ingot::testing
