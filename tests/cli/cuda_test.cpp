// `--target cuda` without a GPU: the kernels go through NVRTC (from the CUDA toolkit) into PTX and
// a cubin for the chosen architecture, with ptxas's register and spill summary; the CUDA C++ is
// printable; a machine without NVRTC gets one clear compile error and no file; loading a CUDA
// artifact where there is no driver (or only the toolkit's stub) is one clear error. Runs on a
// GPU are bench/gpu/run.sh's (the device machine); tests/python/test_cuda_compile.py compiles
// the parity models for sm_80 and sm_90.
#include <cstdlib>
#include <regex>

#include "cli/cli_test_util.h"

namespace ingot::testing {
namespace {

class CudaTest : public CliTest {
 protected:
  // d/model.onnx: Conv + Relu, a MatMul, a Softmax and an integer Mod; d/in.npz.
  void write_model() {
    ASSERT_EQ(
        python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
               "rng = np.random.default_rng(0)\n"
               "W = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)\n"
               "M = rng.standard_normal((10, 6)).astype(np.float32)\n"
               "nodes = [helper.make_node('Conv', ['x', 'W'], ['c'], name='conv',\n"
               "                          pads=[1, 1, 1, 1]),\n"
               "  helper.make_node('Relu', ['c'], ['r'], name='relu'),\n"
               "  helper.make_node('MatMul', ['r', 'M'], ['y'], name='mm'),\n"
               "  helper.make_node('Softmax', ['y'], ['z'], name='sm', axis=-1),\n"
               "  helper.make_node('Mod', ['k', 'm'], ['q'], name='mod')]\n"
               "g = helper.make_graph(nodes, 'cu',\n"
               "  [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 4, 10, 10]),\n"
               "   helper.make_tensor_value_info('k', TensorProto.INT64, [5])],\n"
               "  [helper.make_tensor_value_info('z', TensorProto.FLOAT, [1, 8, 10, 6]),\n"
               "   helper.make_tensor_value_info('q', TensorProto.INT64, [5])],\n"
               "  [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(M, 'M'),\n"
               "   numpy_helper.from_array(np.array([-3], np.int64), 'm')])\n"
               "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]),\n"
               "          d + '/model.onnx')\n"
               "np.savez(d + '/in.npz', x=rng.standard_normal((1, 4, 10, 10)).astype("
               "np.float32), k=np.arange(-2, 3, dtype=np.int64))\n"),
        0);
  }
};

// Without -arch the target is the visible GPU's architecture (a fake driver reporting compute
// capability 9.0 here), else sm_80 (no driver on this machine, or one without a device).
TEST_F(CudaTest, DefaultArchitectureIsTheVisibleGpus) {
  write_model();
  ASSERT_EQ(python("import subprocess\n"
                   "src = d + '/fake.c'\n"
                   "open(src, 'w').write('int cuInit(unsigned f) { return 0; }\\n'\n"
                   "  'int cuDeviceGet(int* d, int o) { *d = o; return o == 0 ? 0 : 101; }\\n'\n"
                   "  'int cuDeviceGetAttribute(int* v, int a, int d) {\\n'\n"
                   "  '  *v = a == 75 ? 9 : 0; return 0; }\\n')\n"
                   "subprocess.check_call(['cc', '-shared', '-fPIC', src, '-o', "
                   "d + '/libcuda_fake.so'])\n"),
            0);
  setenv("INGOT_CUDA_LIBRARY", path("libcuda_fake.so").c_str(), 1);
  auto r = ingot("compile " + path("model.onnx") + " --target cuda -o " + path("v.so"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(target 'cuda -arch=sm_90'"), std::string::npos) << r.out;
  setenv("INGOT_CUDA_DEVICE", "1", 1);  // a device the fake driver does not have
  r = ingot("compile " + path("model.onnx") + " --target cuda -o " + path("w.so"));
  unsetenv("INGOT_CUDA_DEVICE");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(target 'cuda -arch=sm_80'"), std::string::npos) << r.out;
  setenv("INGOT_CUDA_LIBRARY", path("no/libcuda.so.1").c_str(), 1);
  r = ingot("compile " + path("model.onnx") + " --target cuda -o " + path("x.so"));
  unsetenv("INGOT_CUDA_LIBRARY");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(target 'cuda -arch=sm_80'"), std::string::npos) << r.out;
}

TEST_F(CudaTest, KernelsCompileThroughNvrtcForEachArchitecture) {
  write_model();
  for (const char* arch : {"sm_80", "sm_90"}) {
    auto r = ingot("compile " + path("model.onnx") + " --target \"cuda -arch=" + arch + "\" -o " +
                   path(std::string(arch) + ".so"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(r.out, m,
                          std::regex("ptxas \\(" + std::string(arch) +
                                     "\\): (\\d+) kernels, at most (\\d+) registers, no spills\n")))
        << r.out;
    EXPECT_GE(std::stoi(m[1]), 4) << r.out;  // conv (one product block), mm, softmax, mod
    EXPECT_GT(std::stoi(m[2]), 0) << r.out;
    r = ingot("inspect " + path(std::string(arch) + ".so"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("device:     cuda\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string("target:     cuda -arch=") + arch), std::string::npos)
        << r.out;
  }
  auto r =
      ingot("compile " + path("model.onnx") + " --target cuda -o " + path("d.so") + " --dump cuda");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("extern \"C\" __global__ void __launch_bounds__("), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(long)blockIdx.x"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ingot_floormod("), std::string::npos) << r.out;
}

// A float16 MatMul with a fused bias and Relu: from sm_80 its kernel runs the m16n8k16
// tensor-core instruction (the lanes' registers are checked on the CPU in
// tests/driver/gpu_half_matmul_schedule_test.cpp), which ptxas accepts without spills; before
// sm_80 the SIMT tiles.
TEST_F(CudaTest, Float16ProductsRunOnTensorCoresFromSm80) {
  ASSERT_EQ(python("import onnx\nfrom onnx import helper, TensorProto, numpy_helper\n"
                   "rng = np.random.default_rng(0)\n"
                   "W = rng.standard_normal((256, 512)).astype(np.float16)\n"
                   "B = rng.standard_normal((512,)).astype(np.float16)\n"
                   "nodes = [helper.make_node('MatMul', ['x', 'W'], ['p'], name='mm'),\n"
                   "  helper.make_node('Add', ['p', 'B'], ['s'], name='add'),\n"
                   "  helper.make_node('Relu', ['s'], ['y'], name='relu')]\n"
                   "g = helper.make_graph(nodes, 'h',\n"
                   "  [helper.make_tensor_value_info('x', TensorProto.FLOAT16, [1, 128, 256])],\n"
                   "  [helper.make_tensor_value_info('y', TensorProto.FLOAT16, [1, 128, 512])],\n"
                   "  [numpy_helper.from_array(W, 'W'), numpy_helper.from_array(B, 'B')])\n"
                   "onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)]),\n"
                   "          d + '/half.onnx')\n"),
            0);
  for (const char* arch : {"sm_75", "sm_80", "sm_90"}) {
    auto r = ingot("compile " + path("half.onnx") + " --target \"cuda -arch=" + arch + "\" -o " +
                   path(std::string(arch) + ".so") + " --dump cuda");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const bool mma = std::string(arch) != "sm_75";
    EXPECT_EQ(r.out.find("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") != std::string::npos,
              mma)
        << arch << "\n"
        << r.out;
    EXPECT_NE(r.out.find("ptxas (" + std::string(arch) + "): 1 kernels"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("registers, no spills"), std::string::npos) << r.out;
    // The tensor-core tiles stage their slabs in 16-byte vectors, asynchronously (cp.async, which
    // exists from sm_80 too), double-buffered: each barrier first waits for the copies.
    EXPECT_EQ(r.out.find("cp.async.cg.shared.global [%0], [%1], 16;") != std::string::npos, mma)
        << arch;
    EXPECT_EQ(r.out.find("asm volatile(\"cp.async.wait_all;\" ::: \"memory\");\n"
                         "      __syncthreads();") != std::string::npos,
              mma)
        << arch << r.out;
    EXPECT_NE(r.out.find("_shared_1["), std::string::npos) << arch;
  }
}

TEST_F(CudaTest, WithoutNvrtcTheCompileFailsWithOneLine) {
  write_model();
  setenv("INGOT_NVRTC_LIBRARY", path("no/libnvrtc.so").c_str(), 1);
  auto r = ingot("compile " + path("model.onnx") + " --target cuda -o " + path("m.so"));
  unsetenv("INGOT_NVRTC_LIBRARY");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: --target cuda: cannot open NVRTC (" + path("no/libnvrtc.so"), 0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(path("m.so")));
}

TEST_F(CudaTest, WithoutADriverLoadingFailsWithOneClearError) {
  write_model();
  auto r = ingot("compile " + path("model.onnx") + " --target cuda -o " + path("m.so"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  setenv("INGOT_CUDA_LIBRARY", path("no/libcuda.so.1").c_str(), 1);
  r = ingot("run " + path("m.so") + " --inputs " + path("in.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: artifact '" + path("m.so") +
                            "' needs CUDA: cannot open the CUDA driver " + path("no/libcuda.so.1"),
                        0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // The toolkit's stub driver loads but does not initialise.
  const char* stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (std::filesystem::exists(stub)) {
    setenv("INGOT_CUDA_LIBRARY", stub, 1);
    r = ingot("run " + path("m.so") + " --inputs " + path("in.npz"));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("needs CUDA: the CUDA driver does not initialise"), std::string::npos)
        << r.err;
  }
  unsetenv("INGOT_CUDA_LIBRARY");
}

}  // namespace
}  // namespace ingot::testing
