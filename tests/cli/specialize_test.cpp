// `ingot compile --specialize-inputs`: a Reshape whose shape is a graph input compiles when the
// input is specialised, the artifact still takes that input, and its output matches NumPy; a
// different value at run time fails with the guard's one-line error; bad values are clean errors
// that write no artifact.
#include <filesystem>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class SpecializeTest : public CliTest {
 protected:
  // d/model.onnx: y = Reshape(x, shape) * 2 with x float32[4, 6] and shape an int64[2] graph
  // input; d/v.npz specialises shape to [2, 12]; d/in.npz holds x and that shape.
  void SetUp() override {
    CliTest::SetUp();
    ASSERT_EQ(
        python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
               "nodes = [helper.make_node('Reshape', ['x', 'shape'], ['r'], name='rs'),\n"
               "         helper.make_node('Mul', ['r', 'two'], ['y'], name='mul')]\n"
               "g = helper.make_graph(nodes, 'reshape_rt',\n"
               "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [4, 6]),\n"
               "   helper.make_tensor_value_info('shape', TensorProto.INT64, [2])],\n"
               "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)],\n"
               "  [numpy_helper.from_array(np.array(2, np.float32), 'two')])\n"
               "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 14)]),\n"
               "          d + '/model.onnx')\n"
               "x = np.arange(24, dtype=np.float32).reshape(4, 6) - 5\n"
               "np.savez(d + '/v.npz', shape=np.array([2, 12], np.int64))\n"
               "np.savez(d + '/in.npz', x=x, shape=np.array([2, 12], np.int64))\n"
               "np.savez(d + '/bad.npz', x=x, shape=np.array([3, 8], np.int64))\n"
               "np.save(d + '/want.npy', x.reshape(2, 12) * 2)\n"),
        0);
  }
  CommandResult compile(const std::string& values, const std::string& out = "m.so") {
    return ingot("compile '" + path("model.onnx") + "' -o '" + path(out) +
                 "' --specialize-inputs '" + path(values) + "' -q");
  }
};

// Without --specialize-inputs the shape is read at run time (value symbols): any valid shape
// runs, and one whose sizes do not multiply out is refused with one line naming the dim.
TEST_F(SpecializeTest, WithoutSpecializationTheShapeIsReadAtRunTime) {
  auto r = ingot("compile '" + path("model.onnx") + "' -o '" + path("m.so") + "' -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* inputs : {"in.npz", "bad.npz"}) {  // [2, 12] and [3, 8] are both valid
    r = ingot("run '" + path("m.so") + "' --inputs '" + path(inputs) + "' --outputs '" +
              path("out.npz") + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(python(std::string("i = np.load(d + '/") + inputs +
                     "')\n"
                     "y = np.load(d + '/out.npz')['y']\n"
                     "w = i['x'].reshape(tuple(i['shape'])) * 2\n"
                     "assert y.shape == w.shape and np.allclose(y, w), (y.shape, w.shape)\n"),
              0);
  }
  ASSERT_EQ(python("np.savez(d + '/odd.npz', x=np.zeros((4, 6), np.float32), "
                   "shape=np.array([5, 5], np.int64))"),
            0);
  r = ingot("run '" + path("m.so") + "' --inputs '" + path("odd.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: the values of the model's shape-deciding inputs are invalid for dim 'r.v0' "
            "(sizes that do not multiply out or broadcast, a negative size, axes out of range or "
            "repeated, a zero step)\n");
}

TEST_F(SpecializeTest, CompilesRunsAndMatchesNumpy) {
  auto r = compile("v.npz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The artifact keeps both inputs, with their declared types.
  r = ingot("inspect --json '" + path("m.so") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(path("i.json")) << r.out;
  EXPECT_EQ(python("j = json.load(open(d + '/i.json'))\n"
                   "ins = [(t['name'], t['dtype'], t['shape'], t['specialized']) "
                   "for t in j['inputs']]\n"
                   "assert ins == [('x', 'float32', [4, 6], False), "
                   "('shape', 'int64', [2], True)], ins\n"
                   "assert j['outputs'][0]['shape'] == [2, 12], j['outputs']\n"),
            0);
  r = ingot("run '" + path("m.so") + "' --inputs '" + path("in.npz") + "' --outputs '" +
            path("out.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("y = np.load(d + '/out.npz')['y']\n"
                   "want = np.load(d + '/want.npy')\n"
                   "assert y.shape == (2, 12) and (y == want).all(), (y, want)\n"),
            0);
}

TEST_F(SpecializeTest, AnotherValueAtRunTimeFailsWithTheGuardError) {
  ASSERT_EQ(compile("v.npz").exit_code, 0);
  auto r = ingot("run '" + path("m.so") + "' --inputs '" + path("bad.npz") + "' --outputs '" +
                 path("out.npz") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: input 'shape' was specialised at compile time to [2, 12]; got [3, 8]; "
            "recompile with its new value\n");
  EXPECT_FALSE(std::filesystem::exists(path("out.npz")));
  // A specialised input missing from --inputs is filled with its compile-time value.
  ASSERT_EQ(python("np.savez(d + '/x.npz', x=np.load(d + '/in.npz')['x'])"), 0);
  r = ingot("run '" + path("m.so") + "' --inputs '" + path("x.npz") + "' --fill-mode zeros " +
            "--outputs '" + path("out.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("assert (np.load(d + '/out.npz')['y'] == np.load(d + '/want.npy')).all()"), 0);
}

TEST_F(SpecializeTest, BadValuesAreCleanErrors) {
  struct Case {
    const char* npz;
    std::string error;
  };
  ASSERT_EQ(python("np.savez(d + '/unknown.npz', shap=np.array([2, 12], np.int64))\n"
                   "np.savez(d + '/dtype.npz', shape=np.array([2, 12], np.int32))\n"
                   "np.savez(d + '/shape.npz', shape=np.array([2, 3, 4], np.int64))\n"
                   "np.savez(d + '/rank.npz', shape=np.array([[2, 12]], np.int64))\n"),
            0);
  std::string opt = "error: --specialize-inputs '";
  for (const Case& c : std::vector<Case>{
           {"unknown.npz",
            "': 'shap' is not an input of model '" + path("model.onnx") + "' (inputs: x, shape)"},
           {"dtype.npz",
            "': input 'shape' of the model is int64[2], but its specialised value is int32[2]"},
           {"shape.npz",
            "': input 'shape' of the model is int64[2], but its specialised value is int64[3]"},
           {"rank.npz",
            "': input 'shape' of the model is int64[2], but its specialised value is "
            "int64[1,2]"},
       }) {
    auto r = compile(c.npz);
    EXPECT_EQ(r.exit_code, 1) << c.npz;
    EXPECT_EQ(r.err, opt + path(c.npz) + c.error + "\n") << c.npz;
    EXPECT_FALSE(std::filesystem::exists(path("m.so"))) << c.npz;
  }
  auto r = compile("missing.npz");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.npz"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("m.so")));
}

// A symbolic dim of a specialised input is bound by its value; --input-shapes may not disagree.
TEST_F(SpecializeTest, SymbolicDimsAreBoundByTheValue) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto\n"
                   "g = helper.make_graph(\n"
                   "  [helper.make_node('Expand', ['x', 'shape'], ['y'], name='ex')], 'expand',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [3, 1]),\n"
                   "   helper.make_tensor_value_info('shape', TensorProto.INT64, ['R'])],\n"
                   "  [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)])\n"
                   "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),\n"
                   "          d + '/expand.onnx')\n"
                   "np.savez(d + '/s.npz', shape=np.array([2, 3, 4], np.int64))\n"
                   "np.savez(d + '/in.npz', x=np.array([[1], [2], [3]], np.float32),\n"
                   "         shape=np.array([2, 3, 4], np.int64))\n"),
            0);
  auto r = ingot("compile '" + path("expand.onnx") + "' -o '" + path("e.so") +
                 "' --specialize-inputs '" + path("s.npz") + "' -q");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = ingot("run '" + path("e.so") + "' --inputs '" + path("in.npz") + "' --outputs '" +
            path("o.npz") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(python("y = np.load(d + '/o.npz')['y']\n"
                   "want = np.broadcast_to(np.array([[1], [2], [3]], np.float32), (2, 3, 4))\n"
                   "assert (y == want).all(), y\n"),
            0);
  r = ingot("compile '" + path("expand.onnx") + "' -o '" + path("e2.so") +
            "' --specialize-inputs '" + path("s.npz") + "' --input-shapes shape:[2]");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: --input-shapes binds input 'shape' to [2], but its value in "
            "--specialize-inputs '" +
                path("s.npz") + "' has shape [3]\n");
  EXPECT_FALSE(std::filesystem::exists(path("e2.so")));
}

}  // namespace
}  // namespace ingot::testing
