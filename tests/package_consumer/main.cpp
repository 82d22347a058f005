// A consumer of the installed runtime: loads an artifact, fills its float32 inputs with
// x[i] = ((i * 7) % 13) * 0.1 - 0.6, runs it, and writes every output's raw bytes to
// OUT_PREFIX<index>.bin (usage: consumer ARTIFACT.so OUT_PREFIX).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <ingot/runtime.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s ARTIFACT.so OUT_PREFIX\n", argv[0]);
    return 2;
  }
  try {
    ingot::rt::Model model(argv[1]);
    ingot::rt::Session session(model);
    std::vector<std::vector<float>> inputs;
    for (int i = 0; i < model.num_inputs(); ++i) {
      const IngotTensorInfo& info = model.input_info(i);
      size_t n = 1;
      for (int d = 0; d < info.ndim; ++d) n *= static_cast<size_t>(info.shape[d]);
      std::vector<float> x(n);
      for (size_t k = 0; k < n; ++k) x[k] = static_cast<float>((k * 7) % 13) * 0.1f - 0.6f;
      session.set_input_copy(i, x.data(), x.size() * sizeof(float));
      inputs.push_back(std::move(x));
    }
    session.run();
    for (int i = 0; i < model.num_outputs(); ++i) {
      DLTensor y = session.output(i);
      size_t n = ingot_dtype_bytes(model.output_info(i).dtype);
      for (int d = 0; d < y.ndim; ++d) n *= static_cast<size_t>(y.shape[d]);
      std::ofstream(std::string(argv[2]) + std::to_string(i) + ".bin", std::ios::binary)
          .write(static_cast<const char*>(y.data), static_cast<std::streamsize>(n));
    }
    std::printf("ran %s: %d inputs, %d outputs\n", model.artifact().model_name, model.num_inputs(),
                model.num_outputs());
  } catch (const ingot::rt::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
