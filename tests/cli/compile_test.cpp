// `ingot compile` through the binary: compile + run against a NumPy closed form, IR dumps, and
// bad input (one `error:` line, non-zero exit, no output file).
#include <algorithm>
#include <fstream>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class CompileTest : public CliTest {
 protected:
  // Writes d/model.onnx: y = relu(x @ W + b) with symbolic batch N, and d/x.npz with N=3.
  void write_mlp(const std::string& op = "Relu") {
    ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                     "rng = np.random.default_rng(0)\n"
                     "W = rng.standard_normal((5, 4)).astype(np.float32)\n"
                     "b = rng.standard_normal(4).astype(np.float32)\n"
                     "nodes = [helper.make_node('MatMul', ['x', 'W'], ['m'], name='mm'),\n"
                     "         helper.make_node('Add', ['m', 'b'], ['a'], name='add'),\n"
                     "         helper.make_node('" +
                     op +
                     "', ['a'], ['y'], name='act')]\n"
                     "g = helper.make_graph(nodes, 'mlp',\n"
                     "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 5])],\n"
                     "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['N', 4])],\n"
                     "  [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(b, 'b')])\n"
                     "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
                     "onnx.save(m, d + '/model.onnx')\n"
                     "x = rng.standard_normal((3, 5)).astype(np.float32)\n"
                     "np.savez(d + '/x.npz', x=x)\n"
                     "np.save(d + '/want.npy', np.maximum(x @ W + b, 0))\n"),
              0);
  }
};

TEST_F(CompileTest, CompileThenRunMatchesNumpy) {
  write_mlp();
  auto r =
      ingot("compile " + path("model.onnx") + " -o " + path("m.so") + " --input-shapes 'x:[3,5]'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // MatMul + bias Add + Relu fuse into one MatMul: one kernel, the bias row the product's init
  // and the Relu a pass after it.
  EXPECT_NE(r.out.find("1 kernels"), std::string::npos) << r.out;
  r = ingot("run " + path("m.so") + " --inputs " + path("x.npz") + " --outputs " + path("y.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("y = np.load(d + '/y.npz')['y']\n"
                   "want = np.load(d + '/want.npy')\n"
                   "assert y.shape == (3, 4), y.shape\n"
                   "assert np.allclose(y, want, rtol=1e-5, atol=1e-6), (y, want)\n"),
            0);
  r = ingot("inspect " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[N=3,5]"), std::string::npos) << r.out;
}

TEST_F(CompileTest, DumpsAndPrintIrAfter) {
  write_mlp();
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
                 " --input-shapes x:[2,5] --dump graph,tir,llvm --print-ir-after import");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("// IR after import"), std::string::npos);
  EXPECT_NE(r.out.find("= MatMul("), std::string::npos) << r.out;       // graph
  EXPECT_NE(r.out.find("def mm_MatMul("), std::string::npos) << r.out;  // tir
  EXPECT_NE(r.out.find("@ingot_artifact_v1"), std::string::npos);       // llvm
  // traces: the packed matmul's schedule as a script; an unknown --dump value is refused.
  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
            " --input-shapes x:[2,5] --dump traces");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# kernel mm_MatMul: rule dense_matmul\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" = sch.get_block(\"matmul\")\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sch.transform_layout(b"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sch.tensorize(b"), std::string::npos) << r.out;
  r = ingot("compile " + path("model.onnx") + " -o " + path("y.so") + " --dump loops");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--dump"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("y.so")));
}

TEST_F(CompileTest, BadTuningRecordsAreRefusedWithoutOutput) {
  write_mlp();
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") + " --tuning-records " +
                 path("none.jsonl"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--tuning-records"), std::string::npos) << r.err;
  std::ofstream(path("bad.jsonl")) << "\n{\"task\": \"x\"}\n";
  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") + " --input-shapes x:[2,5]" +
            " --tuning-records " + path("bad.jsonl"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.jsonl:2: not a tuning record"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("m.so")));
  // An empty records file: every kernel keeps its default schedule (the MLP's matmul with its
  // epilogue pass), and the summary says so.
  std::ofstream(path("empty.jsonl")) << "";
  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") + " --input-shapes x:[2,5]" +
            " --tuning-records " + path("empty.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tuning records: 0 kernels (0 tasks) from records, 1 with the default "
                       "schedule, 0 records skipped"),
            std::string::npos)
      << r.out;
}

TEST_F(CompileTest, PrintsEachLoopStageAndHonoursScheduleNaive) {
  write_mlp();
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
                 " --input-shapes x:[9,5] --print-ir-after "
                 "lower,schedule,lower_blocks,unroll_loops,flatten_buffers,simplify");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* stage :
       {"lower", "schedule", "lower_blocks", "unroll_loops", "flatten_buffers", "simplify"})
    EXPECT_NE(r.out.find(std::string("// IR after ") + stage + "\n"), std::string::npos) << stage;
  // The MatMul with a constant weight gets the dense matmul rule: a block before scheduling,
  // the tensorized tile after, plain loops once blocks are lowered.
  size_t sched = r.out.find("// IR after schedule"),
         lowered = r.out.find("// IR after lower_blocks");
  EXPECT_NE(r.out.substr(0, sched).find("block(\"matmul\")"), std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(sched, lowered - sched).find("\"tensorized\""), std::string::npos);
  EXPECT_EQ(r.out.substr(lowered).find("block("), std::string::npos);
  // --schedule naive keeps every op's plain loop nest.
  r = ingot("compile " + path("model.onnx") + " -o " + path("n.so") +
            " --input-shapes x:[9,5] --schedule naive --print-ir-after schedule");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("tensorized"), std::string::npos) << r.out;
  r = ingot("compile " + path("model.onnx") + " -o " + path("n.so") + " --schedule fast");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--schedule"), std::string::npos) << r.err;
}

TEST_F(CompileTest, OptLevelsDisabledPassesAndPassTimes) {
  write_mlp();
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
                 " --input-shapes x:[2,5] -O 3 --disabled-pass cse --print-pass-times");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pass fold_batch_norm"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("pass cse"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stage codegen"), std::string::npos) << r.out;
  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
            " --input-shapes x:[2,5] -O0 --print-pass-times");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("pass remove_identity"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass dead_code"), std::string::npos) << r.out;
  r = ingot("compile " + path("model.onnx") + " -o " + path("x.so") + " -O 7");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: -O: optimisation level 7 is out of range (valid: 0 to 3)\n");
  r = ingot("compile " + path("model.onnx") + " -o " + path("x.so") + " --disabled-pass nope");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--disabled-pass: unknown pass 'nope'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("x.so")));
}

// y = sqrt(mean((x - c)^2, axis 1)): four nodes, one fused kernel (prologue, reduction,
// epilogue), and four kernels with fuse_ops disabled; the report says so and numbers match.
TEST_F(CompileTest, ReportCountsKernelsBeforeAndAfterFusion) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "c = np.linspace(-1, 1, 7).astype(np.float32)\n"
                   "nodes = [helper.make_node('Sub', ['x', 'c'], ['d'], name='sub'),\n"
                   "         helper.make_node('Mul', ['d', 'd'], ['s'], name='sq'),\n"
                   "         helper.make_node('ReduceMean', ['s'], ['m'], name='mean', axes=[1],\n"
                   "                          keepdims=0),\n"
                   "         helper.make_node('Sqrt', ['m'], ['y'], name='sqrt')]\n"
                   "g = helper.make_graph(nodes, 'std',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [5, 7])],\n"
                   "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, [5])],\n"
                   "  [numpy_helper.from_array(c, 'c')])\n"
                   "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
                   "onnx.save(m, d + '/model.onnx')\n"
                   "x = np.random.default_rng(3).standard_normal((5, 7)).astype(np.float32)\n"
                   "np.savez(d + '/x.npz', x=x)\n"
                   "np.save(d + '/want.npy', np.sqrt(((x - c) ** 2).mean(axis=1)))\n"),
            0);
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") + " --report");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernels: 4 before fusion (one per imported node), 1 after (1 fused groups"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Sub + Mul + ReduceMean + Sqrt"), std::string::npos) << r.out;
  r = ingot("run " + path("m.so") + " --inputs " + path("x.npz") + " --outputs " + path("y.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("y = np.load(d + '/y.npz')['y']\n"
                   "want = np.load(d + '/want.npy')\n"
                   "assert np.allclose(y, want, rtol=1e-5, atol=1e-6), (y, want)\n"),
            0);
  r = ingot("compile " + path("model.onnx") + " -o " + path("m0.so") +
            " --report --disabled-pass fuse_ops");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 after (0 fused groups"), std::string::npos) << r.out;
}

TEST_F(CompileTest, UnsupportedOpIsOneLineAndWritesNothing) {
  write_mlp("Multinomial");
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: node 'act' (Multinomial, opset 13): unsupported operator\n");
  EXPECT_FALSE(std::filesystem::exists(path("m.so")));
}

TEST_F(CompileTest, BadModelFilesAndOptions) {
  write_mlp();
  std::ofstream(path("garbage.onnx")) << "this is not a protobuf";
  auto r = ingot("compile " + path("garbage.onnx") + " -o " + path("m.so"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("garbage.onnx"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: input 'x' has unbound dimension 'N'; bind it with --input-shapes x:[1,5], or "
            "keep it symbolic with --dim-bounds N:1..MAX (llvm target)\n");

  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
            " --input-shapes x:[3,5] --target 'llvm -mfoo=1'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("-mfoo"), std::string::npos) << r.err;

  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") + " --input-shapes 'x:[3,a]'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--input-shapes"), std::string::npos) << r.err;

  r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
            " --input-shapes x:[3,5] --conv-algorithm fft");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: --conv-algorithm: unknown value 'fft' (valid: auto, direct, winograd_f2, "
            "winograd_f4)\n");
  EXPECT_FALSE(std::filesystem::exists(path("m.so")));

  r = ingot("compile " + path("model.onnx") + " -o /nonexistent/dir/m.so --input-shapes x:[3,5]");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/dir/m.so"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("m.so")));
}

TEST_F(CompileTest, BadCpuOrFeatureIsOneErrorLineBeforeAnyWork) {
  write_mlp();
  // Before: LLVM warned once per kernel and aborted ("64-bit code requested on a subtarget that
  // doesn't support it", exit 134).
  for (const char* target : {"llvm -mcpu=no-such-cpu", "llvm -mcpu=haswell -mattr=+avx513f",
                             "llvm -mtriple=aarch64-linux-gnu -mcpu=znver4"}) {
    auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
                   " --input-shapes x:[3,5] --target '" + target + "'");
    EXPECT_EQ(r.exit_code, 1) << target;
    EXPECT_EQ(r.err.rfind("error: unknown ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("(nearest: "), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::filesystem::exists(path("m.so")));
  }
}

TEST_F(CompileTest, PrintTargetShowsTheResolvedIsa) {
  auto r = ingot("compile --print-target --target 'llvm -mcpu=znver4 -mattr=-avx512f'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cpu:         znver4\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vector isa:  avx2 (256-bit, 8 x f32)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requires:    "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("avx512", r.out.find("requires:")), std::string::npos) << r.out;
  r = ingot("compile --print-target --target 'llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("vector isa:  neon (128-bit, 4 x f32)\n"), std::string::npos) << r.out;
  r = ingot("compile --print-target");  // the host
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(the host: every host feature with its sign)"), std::string::npos) << r.out;
  r = ingot("compile");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("model"), std::string::npos) << r.err;
}

TEST_F(CompileTest, InspectShowsTheIsaRequirement) {
  write_mlp();
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so") +
                 " --input-shapes x:[3,5] --target 'llvm -mcpu=haswell'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("inspect " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("requires:   sse3,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(",avx2 (this CPU has them all)\n"), std::string::npos) << r.out;
  r = ingot("inspect --json " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"isa_features\": ["), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ingot::testing
