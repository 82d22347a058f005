// float16 end to end through the binary: a model with float16 inputs, initializers, Constant
// and outputs compiled, run from a NumPy-written float16 .npz, the outputs read back by NumPy;
// a float32 model compiled with `--dtype float16` (computed in float16 behind its float32
// interface) against ONNX Runtime's float32 run, on the CPU and through OpenCL.
#include <map>
#include <regex>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class Float16Test : public CliTest {
 protected:
  // model.onnx (float32; input x in x.npz, ONNX Runtime's outputs in want.npz) compiled for the
  // host and OpenCL with each --dtype and run: float32 interface, float16 weights, errors against
  // ORT within 1e-5 for float32 and between 1e-4 and 1e-2 for float16.
  void compare_dtypes_with_ort(const std::vector<std::string>& outputs) {
    std::string keys;
    for (const std::string& o : outputs) keys += "'" + o + "', ";
    auto check = [&](const std::string& so, const char* max_err, const char* min_err) {
      return python("o = np.load(d + '/" + so + ".npz'); w = np.load(d + '/want.npz')\n" +
                    "errs = []\n"
                    "for k in (" +
                    keys +
                    "):\n"
                    "  assert o[k].dtype == np.float32 and o[k].shape == w[k].shape, k\n"
                    "  errs.append(np.abs(o[k] - w[k]).max() / np.abs(w[k]).max())\n"
                    "print('" +
                    so + " rel errors', errs)\n" + "assert max(errs) <= " + max_err +
                    " and max(errs) >= " + min_err + ", errs\n");
    };
    for (const char* target : {"llvm", "opencl"}) {
      std::map<std::string, int64_t> constant_bytes;
      for (const char* dtype : {"float32", "float16"}) {
        const std::string so = std::string(target) + "_" + dtype;
        auto r = ingot("compile " + path("model.onnx") + " --target " + target + " --dtype " +
                       dtype + " -o " + path(so + ".so"));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        r = ingot("inspect " + path(so + ".so"));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.out.find("float16"), std::string::npos) << r.out;  // the interface
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.out, m, std::regex("constants: +(\\d+) bytes"))) << r.out;
        constant_bytes[std::string(dtype)] = std::stoll(m[1]);
        r = ingot("run " + path(so + ".so") + " --inputs " + path("x.npz") + " --outputs " +
                  path(so + ".npz"));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const bool half = std::string(dtype) == "float16";
        EXPECT_EQ(check(so, half ? "1e-2" : "1e-5", half ? "1e-4" : "0"), 0) << so;
      }
      EXPECT_LE(constant_bytes["float16"] * 2, constant_bytes["float32"] + 64) << target;
    }
  }
};

TEST_F(Float16Test, NpzRoundTripMatchesNumpy) {
  // y = MatMul(x, W) + c (float16), z = Cast(y, float32), both graph outputs.
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "rng = np.random.default_rng(0)\n"
                   "W = rng.standard_normal((6, 4)).astype(np.float16)\n"
                   "c = np.array([0.5, -1, 2, 1e-5], np.float16)\n"
                   "nodes = [helper.make_node('Constant', [], ['c'], name='k',\n"
                   "           value=numpy_helper.from_array(c, 'c')),\n"
                   "         helper.make_node('MatMul', ['x', 'W'], ['m'], name='mm'),\n"
                   "         helper.make_node('Add', ['m', 'c'], ['y'], name='add'),\n"
                   "         helper.make_node('Cast', ['y'], ['z'], name='cast',\n"
                   "           to=TensorProto.FLOAT)]\n"
                   "g = helper.make_graph(nodes, 'h',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT16, [3, 6])],\n"
                   "  [helper.make_tensor_value_info('y', TensorProto.FLOAT16, [3, 4]),\n"
                   "   helper.make_tensor_value_info('z', TensorProto.FLOAT, [3, 4])],\n"
                   "  [numpy_helper.from_array(W, 'W')])\n"
                   "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])\n"
                   "onnx.save(m, d + '/model.onnx')\n"
                   "x = rng.standard_normal((3, 6)).astype(np.float16)\n"
                   "np.savez(d + '/x.npz', x=x)\n"
                   "mm = (x.astype(np.float32) @ W.astype(np.float32)).astype(np.float16)\n"
                   "np.save(d + '/want.npy', mm + c)\n"),
            0);
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("inspect " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("float16"), std::string::npos) << r.out;
  r = ingot("run " + path("m.so") + " --inputs " + path("x.npz") + " --outputs " + path("o.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("o = np.load(d + '/o.npz'); want = np.load(d + '/want.npy')\n"
                   "y, z = o['y'], o['z']\n"
                   "assert y.dtype == np.float16 and y.shape == (3, 4), (y.dtype, y.shape)\n"
                   "assert z.dtype == np.float32, z.dtype\n"
                   "assert (z == y.astype(np.float32)).all(), (y, z)\n"
                   "assert np.allclose(y, want, rtol=1e-3, atol=0), (y, want)\n"),
            0);
}

// A float32 transformer-style block (MatMul + bias, LayerNormalization, Softmax, Gelu) with
// --dtype float16: the artifact keeps float32 inputs and outputs, holds its weights in half the
// bytes, and matches ONNX Runtime's float32 outputs to float16's precision (1e-2 of the largest
// output; float32 would be 1e-5) on the host and on OpenCL; the float32 compile of the same
// model does not differ from ORT by that much, so the float16 run is not the float32 one. A
// dtype it does not know is one line and no file.
TEST_F(Float16Test, DtypeFloat16ComputesAFloat32ModelInFloat16) {
  ASSERT_EQ(
      python(
          "import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
          "import onnxruntime as ort\n"
          "rng = np.random.default_rng(0)\n"
          "W = (rng.standard_normal((64, 96)) * 0.2).astype(np.float32)\n"
          "B = rng.standard_normal((96,)).astype(np.float32)\n"
          "S = np.ones(96, np.float32); Z = np.zeros(96, np.float32)\n"
          "nodes = [helper.make_node('MatMul', ['x', 'W'], ['m'], name='mm'),\n"
          "  helper.make_node('Add', ['m', 'B'], ['b'], name='bias'),\n"
          "  helper.make_node('LayerNormalization', ['b', 'S', 'Z'], ['n'], name='ln', axis=-1),\n"
          "  helper.make_node('Gelu', ['n'], ['g'], name='gelu'),\n"
          "  helper.make_node('Softmax', ['b'], ['p'], name='sm', axis=-1)]\n"
          "g = helper.make_graph(nodes, 'blk',\n"
          "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 32, 64])],\n"
          "  [helper.make_tensor_value_info('g', TensorProto.FLOAT, [1, 32, 96]),\n"
          "   helper.make_tensor_value_info('p', TensorProto.FLOAT, [1, 32, 96])],\n"
          "  [numpy_helper.from_array(a, n) for a, n in ((W, 'W'), (B, 'B'), (S, 'S'),\n"
          "                                              (Z, 'Z'))])\n"
          "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 20)])\n"
          "onnx.save(m, d + '/model.onnx')\n"
          "x = rng.standard_normal((1, 32, 64)).astype(np.float32)\n"
          "np.savez(d + '/x.npz', x=x)\n"
          "want = ort.InferenceSession(d + '/model.onnx').run(None, {'x': x})\n"
          "np.savez(d + '/want.npz', g=want[0], p=want[1])\n"),
      0);
  compare_dtypes_with_ort({"g", "p"});
  auto r = ingot("compile " + path("model.onnx") + " --dtype bfloat8 -o " + path("bad.so"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: --dtype: 'bfloat8' is not supported (valid: float32, float16, bfloat16)\n");
  EXPECT_FALSE(std::filesystem::exists(path("bad.so")));
}

// Convs with --dtype float16: a padded 3x3 with bias and Relu, then a 1x1 whose output the
// first's adds to (fused as the residual summand), a depthwise 3x3 and a global average pool:
// the GPU's conv blocks accumulate in float32 and round once, as the CPU's rows do.
TEST_F(Float16Test, DtypeFloat16ComputesConvsInFloat16) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "import onnxruntime as ort\n"
                   "rng = np.random.default_rng(1)\n"
                   "W1 = (rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(np.float32)\n"
                   "B1 = rng.standard_normal((16,)).astype(np.float32)\n"
                   "W2 = (rng.standard_normal((16, 8, 1, 1)) * 0.3).astype(np.float32)\n"
                   "W3 = (rng.standard_normal((16, 1, 3, 3)) * 0.3).astype(np.float32)\n"
                   "nodes = [helper.make_node('Conv', ['x', 'W1', 'B1'], ['c1'], name='c1',\n"
                   "           pads=[1, 1, 1, 1]),\n"
                   "  helper.make_node('Conv', ['x', 'W2'], ['c2'], name='c2'),\n"
                   "  helper.make_node('Add', ['c1', 'c2'], ['s'], name='res'),\n"
                   "  helper.make_node('Relu', ['s'], ['r'], name='relu'),\n"
                   "  helper.make_node('Conv', ['r', 'W3'], ['y'], name='dw', group=16,\n"
                   "           pads=[1, 1, 1, 1]),\n"
                   "  helper.make_node('GlobalAveragePool', ['y'], ['p'], name='gap')]\n"
                   "g = helper.make_graph(nodes, 'convs',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 8, 12, 10])],\n"
                   "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, [1, 16, 12, 10]),\n"
                   "   helper.make_tensor_value_info('p', TensorProto.FLOAT, [1, 16, 1, 1])],\n"
                   "  [numpy_helper.from_array(a, n) for a, n in ((W1, 'W1'), (B1, 'B1'),\n"
                   "                                              (W2, 'W2'), (W3, 'W3'))])\n"
                   "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])\n"
                   "onnx.save(m, d + '/model.onnx')\n"
                   "x = rng.standard_normal((1, 8, 12, 10)).astype(np.float32)\n"
                   "np.savez(d + '/x.npz', x=x)\n"
                   "want = ort.InferenceSession(d + '/model.onnx').run(None, {'x': x})\n"
                   "np.savez(d + '/want.npz', y=want[0], p=want[1])\n"),
            0);
  compare_dtypes_with_ort({"y", "p"});
}

TEST_F(Float16Test, Float32DataForAFloat16InputIsRejected) {
  ASSERT_EQ(
      python("import onnx\nfrom onnx import helper, TensorProto\n"
             "g = helper.make_graph([helper.make_node('Relu', ['x'], ['y'], name='r')], 'h',\n"
             "  [helper.make_tensor_value_info('x', TensorProto.FLOAT16, [2])],\n"
             "  [helper.make_tensor_value_info('y', TensorProto.FLOAT16, [2])])\n"
             "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]),\n"
             "          d + '/model.onnx')\n"
             "np.savez(d + '/x.npz', x=np.array([1, -1], np.float32))\n"),
      0);
  auto r = ingot("compile " + path("model.onnx") + " -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("run " + path("m.so") + " --inputs " + path("x.npz") + " --outputs " + path("o.npz"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("expected dtype float16, got float32"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ingot::testing
