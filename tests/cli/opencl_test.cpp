// `--target opencl`: models compiled for the GPU lowering run through the runtime's OpenCL device
// (on PoCL's CPU device here; .ci/run installs pocl-opencl-icd) and match closed forms; the
// OpenCL C is printable; a machine without the ICD loader or without a platform gets one clear
// error at load. The parity models run through OpenCL in tests/python/test_opencl_parity.py.
#include <cstdlib>
#include <fstream>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class OpenClTest : public CliTest {
 protected:
  // d/model.onnx: integer floor modulo of negative values (ONNX Mod, fmod 0), a broadcast
  // multiply-add with a Where over a comparison, a row Softmax and a MatMul; d/x.npz, d/k.npz and
  // the NumPy closed forms d/want_*.npy.
  void write_model() {
    ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                     "rng = np.random.default_rng(3)\n"
                     "M = rng.standard_normal((7, 5)).astype(np.float32)\n"
                     "s = rng.standard_normal((1, 7)).astype(np.float32)\n"
                     "nodes = [helper.make_node('Mod', ['k', 'm'], ['r'], name='mod'),\n"
                     "  helper.make_node('Mul', ['x', 's'], ['a'], name='mul'),\n"
                     "  helper.make_node('Greater', ['a', 'zero'], ['g'], name='gt'),\n"
                     "  helper.make_node('Where', ['g', 'a', 'x'], ['w'], name='where'),\n"
                     "  helper.make_node('Softmax', ['w'], ['p'], name='softmax', axis=-1),\n"
                     "  helper.make_node('MatMul', ['p', 'M'], ['y'], name='mm')]\n"
                     "g = helper.make_graph(nodes, 'cl',\n"
                     "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [3, 7]),\n"
                     "   helper.make_tensor_value_info('k', TensorProto.INT64, [11])],\n"
                     "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, [3, 5]),\n"
                     "   helper.make_tensor_value_info('r', TensorProto.INT64, [11])],\n"
                     "  [numpy_helper.from_array(M, 'M'), numpy_helper.from_array(s, 's'),\n"
                     "   numpy_helper.from_array(np.array(0, np.float32), 'zero'),\n"
                     "   numpy_helper.from_array(np.array([-4], np.int64), 'm')])\n"
                     "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)])\n"
                     "onnx.save(m, d + '/model.onnx')\n"
                     "x = rng.standard_normal((3, 7)).astype(np.float32)\n"
                     "k = np.arange(-5, 6, dtype=np.int64) * 3\n"
                     "np.savez(d + '/in.npz', x=x, k=k)\n"
                     "a = x.astype(np.float64) * s\n"
                     "w = np.where(a > 0, a, x)\n"
                     "e = np.exp(w - w.max(-1, keepdims=True))\n"
                     "np.save(d + '/want_y.npy', (e / e.sum(-1, keepdims=True)) @ M)\n"
                     "np.save(d + '/want_r.npy', np.mod(k, -4))\n"),
              0);
  }
  // Compiles d/model.onnx for `target` into d/NAME.so; runs it on d/in.npz and checks both
  // outputs against the closed forms.
  void expect_closed_form(const std::string& target, const std::string& name) {
    auto r = ingot("compile " + path("model.onnx") + " --target \"" + target + "\" -o " +
                   path(name + ".so"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("(target '" + target + "'"), std::string::npos) << r.out;
    r = ingot("run " + path(name + ".so") + " --inputs " + path("in.npz") + " --outputs " +
              path(name + ".out.npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    expect_closed_form_outputs(name + ".out.npz");
  }
  // d/OUT (an .npz of the model's outputs) holds the closed forms.
  void expect_closed_form_outputs(const std::string& out) {
    EXPECT_EQ(python("o = np.load(d + '/" + out +
                     "')\n"
                     "y, r = o['y'], o['r']\n"
                     "assert y.dtype == np.float32 and y.shape == (3, 5), (y.dtype, y.shape)\n"
                     "err = np.abs(y - np.load(d + '/want_y.npy')).max()\n"
                     "assert err < 1e-5, err\n"
                     "assert r.dtype == np.int64 and (r == np.load(d + '/want_r.npy')).all(), r\n"),
              0);
  }
};

// Also a regression test of the OpenCL printer's barrier after a loop with barriers: without it
// this model's 3x7 @ 7x5 product, tiled with masked edges, read garbage on PoCL 3.1 (optimized).
TEST_F(OpenClTest, RunsOnTheDeviceAndMatchesClosedForms) {
  write_model();
  expect_closed_form("opencl", "m");
  // At most 32 threads per work-group: more groups, the same numbers.
  expect_closed_form("opencl -max-num-threads=32", "m32");
  auto r = ingot("inspect " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("device:     opencl\n"), std::string::npos) << r.out;
  // --device picks among the machine's OpenCL devices: the first exists, a 100th does not.
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz") + " --device 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz") + " --device 99");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("INGOT_OPENCL_DEVICE=99: there are only "), std::string::npos) << r.err;
}

// Models loaded one after another in one process (`ingot run --batch`) share the device's
// context, the first model's freed before the next loads; each gives the closed forms, a line
// on a missing device fails alone and the next line is back on the default device.
TEST_F(OpenClTest, OneProcessRunsModelsOneAfterAnotherOnTheSharedContext) {
  write_model();
  for (const char* target : {"opencl", "opencl -max-num-threads=32"}) {
    auto r = ingot("compile " + path("model.onnx") + " --target \"" + target + "\" -o " +
                   path(std::string(target) == "opencl" ? "m.so" : "m32.so"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::ofstream(path("runs.txt")) << path("m.so") << " --inputs " << path("in.npz") << " --outputs "
                                  << path("1.npz") << "\n"
                                  << path("m32.so") << " --inputs " << path("in.npz")
                                  << " --outputs " << path("2.npz") << "\n"
                                  << path("m.so") << " --inputs " << path("in.npz")
                                  << " --device 99\n"
                                  << path("m.so") << " --inputs " << path("in.npz") << " --outputs "
                                  << path("3.npz") << "\n";
  auto r = ingot("run --batch " + path("runs.txt"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(
      r.out.find("ingot-batch: 1 exit 0\ningot-batch: 2 exit 0\nerror: INGOT_OPENCL_DEVICE=99: "
                 "there are only "),
      std::string::npos)
      << r.out;
  EXPECT_TRUE(r.out.ends_with("ingot-batch: 3 exit 1\ningot-batch: 4 exit 0\n")) << r.out;
  for (const char* out : {"1.npz", "2.npz", "3.npz"}) expect_closed_form_outputs(out);
}

TEST_F(OpenClTest, ProfileTimesEachKernel) {
  write_model();
  auto r = ingot("compile " + path("model.onnx") + " --target opencl -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz") + " --profile --repeat 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* kernel : {"mod_Mod", "softmax_Softmax", "mm_MatMul"})
    EXPECT_NE(r.out.find(kernel), std::string::npos) << r.out;
}

TEST_F(OpenClTest, DumpPrintsTheKernels) {
  write_model();
  auto r = ingot("compile " + path("model.onnx") + " --target opencl -o " + path("m.so") +
                 " --dump opencl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("__kernel void mm_MatMul_0("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("get_group_id(0)"), std::string::npos) << r.out;
  // The negative divisor keeps the floor-modulo helper.
  EXPECT_NE(r.out.find("ingot_floormod("), std::string::npos) << r.out;
  r = ingot("compile " + path("model.onnx") + " -o " + path("cpu.so") + " --dump opencl");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--dump opencl needs --target opencl"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("cpu.so")));
}

// The GPU matmul rule's tiles (shared-memory slabs, per-thread register tiles, the epilogue per
// thread) on products whose sizes leave partial tiles everywhere: a broadcast batched MatMul, a
// Gemm with transB / alpha / beta, a MatMul + bias + Relu (fused epilogue), a one-row product
// and a product of two vectors (a scalar: the fallback rule's), at the default threads and at 32
// threads per work-group, against NumPy in float64.
TEST_F(OpenClTest, TiledProductsMatchNumPy) {
  ASSERT_EQ(
      python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
             "rng = np.random.default_rng(5)\n"
             "f = lambda *s: rng.standard_normal(s).astype(np.float32)\n"
             "B, W, C, W2, b2, W3 = f(3, 29, 45), f(45, 29), f(45), f(70, 130), f(130), "
             "f(64, 33)\n"
             "nodes = [helper.make_node('MatMul', ['a', 'B'], ['y1'], name='bmm'),\n"
             "  helper.make_node('Gemm', ['x', 'W', 'C'], ['y2'], name='gemm', transB=1,\n"
             "                   alpha=0.5, beta=2.0),\n"
             "  helper.make_node('MatMul', ['u', 'W2'], ['h'], name='mm'),\n"
             "  helper.make_node('Add', ['h', 'b2'], ['hb'], name='bias'),\n"
             "  helper.make_node('Relu', ['hb'], ['y3'], name='relu'),\n"
             "  helper.make_node('MatMul', ['v', 'W3'], ['y4'], name='row'),\n"
             "  helper.make_node('MatMul', ['p', 'q'], ['y5'], name='dot')]\n"
             "F = TensorProto.FLOAT\n"
             "vi = helper.make_tensor_value_info\n"
             "g = helper.make_graph(nodes, 'mm',\n"
             "  [vi('a', F, [2, 3, 37, 29]), vi('x', F, [37, 29]), vi('u', F, [5, 70]),\n"
             "   vi('v', F, [1, 64]), vi('p', F, [29]), vi('q', F, [29])],\n"
             "  [vi('y1', F, [2, 3, 37, 45]), vi('y2', F, [37, 45]), vi('y3', F, [5, 130]),\n"
             "   vi('y4', F, [1, 33]), vi('y5', F, [])],\n"
             "  [numpy_helper.from_array(t, n) for t, n in\n"
             "   [(B, 'B'), (W, 'W'), (C, 'C'), (W2, 'W2'), (b2, 'b2'), (W3, 'W3')]])\n"
             "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),\n"
             "          d + '/mm.onnx')\n"
             "a, x, u, v, p, q = f(2, 3, 37, 29), f(37, 29), f(5, 70), f(1, 64), f(29), f(29)\n"
             "np.savez(d + '/mm.npz', a=a, x=x, u=u, v=v, p=p, q=q)\n"
             "D = lambda t: t.astype(np.float64)\n"
             "np.savez(d + '/want.npz', y1=D(a) @ D(B), y2=0.5 * D(x) @ D(W).T + 2 * D(C),\n"
             "         y3=np.maximum(D(u) @ D(W2) + D(b2), 0), y4=D(v) @ D(W3), y5=D(p) @ D(q))\n"),
      0);
  for (const char* target : {"opencl", "opencl -max-num-threads=32"}) {
    auto r = ingot("compile " + path("mm.onnx") + " --target \"" + std::string(target) + "\" -o " +
                   path("mm.so") + " --dump opencl");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Each product stages its slabs in local memory between barriers.
    EXPECT_NE(r.out.find("__local float"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("barrier(CLK_LOCAL_MEM_FENCE);"), std::string::npos) << r.out;
    r = ingot("run " + path("mm.so") + " --inputs " + path("mm.npz") + " --outputs " +
              path("out.npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(python("o, w = np.load(d + '/out.npz'), np.load(d + '/want.npz')\n"
                     "for n in ['y1', 'y2', 'y3', 'y4', 'y5']:\n"
                     "    assert o[n].shape == w[n].shape, (n, o[n].shape)\n"
                     "    err = np.abs(o[n] - w[n]).max() / np.abs(w[n]).max()\n"
                     "    assert err < 1e-5, (n, err)\n"),
              0)
        << target;
  }
  // Tiles that do not fit the shared memory a block may declare: one line naming the kernel.
  auto r = ingot("compile " + path("mm.onnx") +
                 " --target \"opencl -max-shared-memory-per-block=1024\" -o " + path("small.so"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bytes of shared memory per thread block; the target allows 1024"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("small.so")));
}

// Regression: `ingot tune --target opencl` searched the CPU rules' design space (loops made
// parallel and vectorized, which the GPU lowering then ran on one thread). It now searches the
// GPU rules: the records' traces bind thread axes, and the tuned artifact still matches NumPy.
TEST_F(OpenClTest, TunesTheGpuRules) {
  write_model();
  auto r = ingot("tune " + path("model.onnx") + " --target opencl --trials 4 --repeat 2 " +
                 "--min-repeat-ms 0 --tasks 2 -o " + path("rec.jsonl"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("import json\n"
                   "recs = [json.loads(l) for l in open(d + '/rec.jsonl')]\n"
                   "tried = [r for r in recs if r.get('origin') in ('default', 'random', "
                   "'mutation', 'model')]\n"
                   "assert len(tried) >= 2, recs\n"
                   "for t in tried:\n"
                   "    kinds = [i['kind'] for i in t['trace']['instructions']]\n"
                   "    assert 'bind' in kinds and 'cache_read' in kinds, kinds\n"),
            0);
  r = ingot("compile " + path("model.onnx") + " --target opencl --tuning-records " +
            path("rec.jsonl") + " -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz") + " --outputs " +
            path("m.out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("o = np.load(d + '/m.out.npz')\n"
                   "assert np.abs(o['y'] - np.load(d + '/want_y.npy')).max() < 1e-5\n"),
            0);
}

// Regression: a row reduction over the whole tensor (no loop left to bind) runs on one thread,
// and its per-thread running values (LogSoftmax's maximum and sum) stay in that one launch; they
// were split into launches of their own, each with a fresh copy (NaN outputs).
TEST_F(OpenClTest, WholeTensorReductionsKeepTheirStateInOneLaunch) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto\n"
                   "nodes = [helper.make_node('LogSoftmax', ['x'], ['y'], name='lsm', axis=-1),\n"
                   "  helper.make_node('GlobalMaxPool', ['p'], ['q'], name='gmp')]\n"
                   "g = helper.make_graph(nodes, 'red',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 5]),\n"
                   "   helper.make_tensor_value_info('p', TensorProto.FLOAT, [1, 1, 3, 3])],\n"
                   "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 5]),\n"
                   "   helper.make_tensor_value_info('q', TensorProto.FLOAT, [1, 1, 1, 1])])\n"
                   "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),\n"
                   "          d + '/red.onnx')\n"
                   "x = np.array([[1.0, -2.0, 3.5, 0.25, 2.0]], np.float32)\n"
                   "p = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3) - 4\n"
                   "np.savez(d + '/red.npz', x=x, p=p)\n"),
            0);
  auto r = ingot("compile " + path("red.onnx") + " --target opencl -o " + path("red.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("run " + path("red.so") + " --inputs " + path("red.npz") + " --outputs " +
            path("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("o = np.load(d + '/out.npz')\n"
                   "x = np.load(d + '/red.npz')['x'].astype(np.float64)\n"
                   "want = x - x.max() - np.log(np.exp(x - x.max()).sum())\n"
                   "assert np.abs(o['y'] - want).max() < 1e-6, (o['y'], want)\n"
                   "assert o['q'].reshape(-1).tolist() == [4.0], o['q']\n"),
            0);
}

// Without the ICD loader, and with a loader but no platform: one line naming the artifact.
TEST_F(OpenClTest, MachinesWithoutOpenClGetOneClearError) {
  write_model();
  auto r = ingot("compile " + path("model.onnx") + " --target opencl -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  setenv("INGOT_OPENCL_LIBRARY", path("no/libOpenCL.so.1").c_str(), 1);
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz"));
  unsetenv("INGOT_OPENCL_LIBRARY");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: artifact '" + path("m.so") +
                            "' needs OpenCL: cannot open the OpenCL ICD loader " +
                            path("no/libOpenCL.so.1"),
                        0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // ocl-icd reads the platforms from OCL_ICD_VENDORS: an empty folder has none.
  std::filesystem::create_directories(path("vendors"));
  setenv("OCL_ICD_VENDORS", path("vendors").c_str(), 1);
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz"));
  unsetenv("OCL_ICD_VENDORS");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: artifact '" + path("m.so") +
                       "' needs an OpenCL device, but no OpenCL platform is installed (an ICD "
                       "such as Debian's pocl-opencl-icd or the GPU vendor's)\n")
      << r.err;
}

}  // namespace
}  // namespace ingot::testing
