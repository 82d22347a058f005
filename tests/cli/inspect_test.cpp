// `ingot inspect` on the hand-written fake artifact: text and JSON views of the record, and
// one-line errors for files that are not artifacts.
#include <string>

#include "cli/cli_test_util.h"

namespace {

using ingot::testing::CliTest;
using InspectTest = CliTest;

TEST_F(InspectTest, PrintsTheRecord) {
  auto r = ingot("inspect '" + artifact("fake_affine") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "model:      fake_affine\n"
            "target:     llvm -mcpu=generic\n"
            "device:     cpu\n"
            "requires:   the architecture's baseline only\n"
            "inputs (2):\n"
            "  x     float32  [N=2,3]\n"
            "  bias  float32  [3]\n"
            "outputs (2):\n"
            "  y      float32  [N=2,3]\n"
            "  count  int64    [1]\n"
            "workspace:  64 bytes\n"
            "constants:  12 bytes\n"
            "kernels:    2\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(InspectTest, PrintsJson) {
  auto r = ingot("inspect --json '" + artifact("fake_affine") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(path("i.json")) << r.out;
  EXPECT_EQ(python("j = json.load(open(d + '/i.json'))\n"
                   "assert j['model_name'] == 'fake_affine' and j['device'] == 'cpu'\n"
                   "assert j['inputs'][0] == {'name': 'x', 'dtype': 'float32', 'shape': [2, 3], "
                   "'dim_names': ['N', ''], 'specialized': False}, j['inputs'][0]\n"
                   "assert j['outputs'][1]['dtype'] == 'int64'\n"
                   "assert j['workspace_bytes'] == 64 and j['constant_bytes'] == 12\n"
                   "assert [k['name'] for k in j['kernels']] == ['fake_scale', 'fake_bias_add']\n"
                   "assert j['kernels'][0]['flops'] == 6.0"),
            0);
}

TEST_F(InspectTest, ShowsNonCpuArtifacts) {
  // A device type this runtime cannot run (Vulkan) is still shown; real CUDA and OpenCL
  // artifacts are inspected in cuda_test.cpp and opencl_test.cpp.
  auto r = ingot("inspect '" + artifact("fake_affine_vulkan") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("device:     device type 7\n"), std::string::npos) << r.out;
}

TEST_F(InspectTest, MissingFile) {
  auto r = ingot("inspect '" + path("none.so") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: cannot open artifact '" + path("none.so") + "': No such file or directory\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(InspectTest, WrongAbiVersion) {
  auto r = ingot("inspect '" + artifact("fake_affine_abi1") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: artifact '" + artifact("fake_affine_abi1") +
                       "' was built for ingot ABI version 1, this runtime supports version 9\n");
}

TEST_F(InspectTest, NotAnArtifact) {
  std::ofstream(path("t.so")) << "text\n";
  auto r = ingot("inspect '" + path("t.so") + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: artifact '" + path("t.so") + "' is not a shared library (no ELF header)\n");
}

}  // namespace
