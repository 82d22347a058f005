// Unsigned 16/32/64-bit integers end to end through the binary: a model whose inputs,
// initializers (in the TensorProto's typed uint64_data field, not raw bytes) and outputs are
// uint16, uint32 and uint64, with the operations where unsigned differs from signed (division
// and remainder past 2^31 and 2^63, comparisons across the sign bit, logical right shifts,
// conversion to float), on the llvm and c targets, checked against NumPy; `ingot run` prints
// the values in full.
#include <string>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

using UnsignedTest = CliTest;

constexpr const char* kModel =
    "import onnx\nfrom onnx import helper, TensorProto\n"
    "U64, U32, U16 = TensorProto.UINT64, TensorProto.UINT32, TensorProto.UINT16\n"
    "big = [2**64 - 1, 2**63 + 5, 7, 2**63 - 1]\n"
    "inits = [helper.make_tensor('k64', U64, [4], big),\n"
    "         helper.make_tensor('s64', U64, [4], [1, 63, 0, 7]),\n"
    "         helper.make_tensor('k32', U32, [4], [2**32 - 1, 2**31 + 3, 3, 5]),\n"
    "         helper.make_tensor('k16', U16, [4], [65535, 40000, 3, 1])]\n"
    "nodes = [helper.make_node('Div', ['k64', 'a64'], ['div64']),\n"
    "         helper.make_node('Mod', ['k64', 'a64'], ['mod64']),\n"
    "         helper.make_node('Less', ['a64', 'k64'], ['less64']),\n"
    "         helper.make_node('Max', ['a64', 'k64'], ['max64']),\n"
    "         helper.make_node('BitShift', ['k64', 's64'], ['shr64'], direction='RIGHT'),\n"
    "         helper.make_node('Cast', ['k64'], ['f64'], to=TensorProto.DOUBLE),\n"
    "         helper.make_node('Div', ['k32', 'a32'], ['div32']),\n"
    "         helper.make_node('Sub', ['a32', 'k32'], ['sub32']),\n"
    "         helper.make_node('Greater', ['k32', 'a32'], ['gt32']),\n"
    "         helper.make_node('Mul', ['a16', 'k16'], ['mul16']),\n"
    "         helper.make_node('ReduceMax', ['a16'], ['rmax16'], keepdims=0)]\n"
    "ins = [helper.make_tensor_value_info('a64', U64, [4]),\n"
    "       helper.make_tensor_value_info('a32', U32, [4]),\n"
    "       helper.make_tensor_value_info('a16', U16, [4])]\n"
    "outs = [helper.make_tensor_value_info(n, t, None) for n, t in (\n"
    "    ('div64', U64), ('mod64', U64), ('less64', TensorProto.BOOL), ('max64', U64),\n"
    "    ('shr64', U64), ('f64', TensorProto.DOUBLE), ('div32', U32), ('sub32', U32),\n"
    "    ('gt32', TensorProto.BOOL), ('mul16', U16), ('rmax16', U16))]\n"
    "g = helper.make_graph(nodes, 'unsigned', ins, outs, inits)\n"
    "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 18)]),\n"
    "          d + '/model.onnx')\n"
    "np.savez(d + '/in.npz', a64=np.array([3, 2**63 + 1, 2**64 - 2, 9], np.uint64),\n"
    "         a32=np.array([2, 7, 2**32 - 1, 4], np.uint32),\n"
    "         a16=np.array([2, 3, 65535, 40001], np.uint16))\n";

// NumPy's unsigned arithmetic (wrapping like ONNX's) on the same values.
constexpr const char* kCheck =
    "o = np.load(d + '/' + name + '.npz'); x = np.load(d + '/in.npz')\n"
    "a64, a32, a16 = x['a64'], x['a32'], x['a16']\n"
    "k64 = np.array([2**64 - 1, 2**63 + 5, 7, 2**63 - 1], np.uint64)\n"
    "k32 = np.array([2**32 - 1, 2**31 + 3, 3, 5], np.uint32)\n"
    "k16 = np.array([65535, 40000, 3, 1], np.uint16)\n"
    "want = dict(div64=k64 // a64, mod64=k64 % a64, less64=a64 < k64, max64=np.maximum(a64, k64),\n"
    "    shr64=k64 >> np.array([1, 63, 0, 7], np.uint64), f64=k64.astype(np.float64),\n"
    "    div32=k32 // a32, sub32=a32 - k32, gt32=k32 > a32, mul16=a16 * k16,\n"
    "    rmax16=np.array(a16.max(), np.uint16))\n"
    "for k, w in want.items():\n"
    "    assert o[k].dtype == w.dtype and o[k].shape == w.shape, (k, o[k].dtype, o[k].shape)\n"
    "    assert (o[k] == w).all(), (k, o[k], w)\n";

TEST_F(UnsignedTest, WideUnsignedIntegersMatchNumpyOnLlvmAndC) {
  ASSERT_EQ(python(kModel), 0);
  for (const char* target : {"llvm", "c"}) {
    const std::string name = target;
    auto r =
        ingot("compile " + path("model.onnx") + " --target " + name + " -o " + path(name + ".so"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = ingot("run " + path(name + ".so") + " --inputs " + path("in.npz") + " --outputs " +
              path(name + ".npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(python("name = '" + name + "'\n" + kCheck), 0) << target;
  }
  // Printed in full, not as a signed or float value.
  auto r = ingot("run " + path("llvm.so") + " --inputs " + path("in.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("max64: uint64"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("18446744073709551615"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mul16: uint16"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ingot::testing
