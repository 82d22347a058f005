// float16 end to end through the binary: a model with float16 inputs, initializers, Constant
// and outputs compiled, run from a NumPy-written float16 .npz, the outputs read back by NumPy.
#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class Float16Test : public CliTest {};

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
