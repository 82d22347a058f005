// ingot_generate: text generation with a decoder artifact, on the runtime alone (no Python, no
// compiler). The artifact comes from `ingot compile` of a scripts/export_decoder.py model with
// symbolic `seq` and `past` (--dim-bounds): inputs input_ids [1, seq] and past_key_<i> /
// past_value_<i> [1, heads, past, head_dim]; outputs logits [1, seq, vocab] and the presents
// [1, heads, past + seq, head_dim]. It runs the prompt in one call (prefill, past = 0), then
// one token per call (decode), feeding each call's presents back as the next pasts; greedy or
// top-p sampling. An artifact compiled with --kv-cache N keeps the caches in the session instead
// (states: its only input is input_ids and its only output the logits), so nothing is copied
// between calls. Prints the tokens, then prefill and decode tokens/s, the peak resident
// memory and the artifact's size (docs/dynamic-shapes.md).
//
//   ingot_generate model.so --prompt 464,3290,318 [--tokens 64] [--top-p 0.9]
//                  [--temperature 1.0] [--seed 0] [--threads N]
#include <dlpack/dlpack.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ingot/runtime.hpp>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string artifact;
  std::vector<int64_t> prompt;
  int tokens = 32;
  double top_p = 0.0;  // 0: greedy
  double temperature = 1.0;
  uint64_t seed = 0;
  int threads = 0;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "ingot_generate: %s\n", message.c_str());
  std::fprintf(stderr,
               "usage: ingot_generate MODEL.so --prompt ID,ID,... [--tokens N] [--top-p P] "
               "[--temperature T] [--seed S] [--threads N]\n");
  std::exit(2);
}

std::vector<int64_t> parse_ids(const std::string& text) {
  std::vector<int64_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0)
      usage_error("--prompt: '" + item + "' is not a token id");
    ids.push_back(v);
  }
  if (ids.empty()) usage_error("--prompt: no token ids");
  return ids;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    auto number = [&](const std::string& v) {
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0') usage_error(a + ": '" + v + "' is not a number");
      return d;
    };
    if (a == "--prompt") {
      o.prompt = parse_ids(value());
    } else if (a == "--tokens") {
      o.tokens = int(number(value()));
    } else if (a == "--top-p") {
      o.top_p = number(value());
    } else if (a == "--temperature") {
      o.temperature = number(value());
    } else if (a == "--seed") {
      o.seed = uint64_t(number(value()));
    } else if (a == "--threads") {
      o.threads = int(number(value()));
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option '" + a + "'");
    } else if (o.artifact.empty()) {
      o.artifact = a;
    } else {
      usage_error("more than one model given");
    }
  }
  if (o.artifact.empty()) usage_error("no model given");
  if (o.prompt.empty()) usage_error("--prompt is required");
  if (o.tokens < 1) usage_error("--tokens must be at least 1");
  if (o.top_p < 0.0 || o.top_p > 1.0) usage_error("--top-p must be in [0, 1]");
  if (o.temperature <= 0.0) usage_error("--temperature must be positive");
  return o;
}

// An owned float32 or int64 tensor handed to the session as a DLTensor (zero-copy).
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
  DLDataType dtype;
  DLTensor view() {
    DLTensor t{};
    t.data = bytes.data();
    t.device = {kDLCPU, 0};
    t.ndim = int32_t(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    return t;
  }
};

int64_t elements(const DLTensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

// The next token from the last row of logits: argmax, or top-p (nucleus) sampling.
int64_t choose(const float* logits, int64_t vocab, const Options& o, std::mt19937_64& rng) {
  if (o.top_p <= 0.0) return std::max_element(logits, logits + vocab) - logits;
  std::vector<double> p(size_t(vocab), 0.0);
  double mx = *std::max_element(logits, logits + vocab), sum = 0.0;
  for (int64_t v = 0; v < vocab; ++v)
    sum += p[size_t(v)] = std::exp((logits[v] - mx) / o.temperature);
  std::vector<int64_t> order(static_cast<size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return p[size_t(a)] > p[size_t(b)]; });
  double kept = 0.0;
  size_t n = 0;
  while (n < order.size() && kept < o.top_p * sum) kept += p[size_t(order[n++])];
  std::uniform_real_distribution<double> u(0.0, kept);
  double r = u(rng);
  for (size_t k = 0; k < n; ++k) {
    r -= p[size_t(order[k])];
    if (r <= 0.0) return order[k];
  }
  return order[n - 1];
}

// This process's peak resident set: VmHWM (reset by exec, unlike getrusage's ru_maxrss, which
// a child keeps from a large parent), else ru_maxrss.
double peak_resident_mb() {
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long kb = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    std::fclose(f);
    if (kb >= 0) return double(kb) / 1024.0;
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    if (o.threads > 0) ingot::rt::set_num_threads(o.threads);
    ingot::rt::Model model(o.artifact);
    ingot::rt::Session session(model);
    const int ids_index = model.find_input("input_ids");
    const int logits_index = model.find_output("logits");
    if (ids_index < 0 || logits_index < 0)
      throw std::runtime_error(
          "the model has no input 'input_ids' or no output 'logits' "
          "(export it with scripts/export_decoder.py)");
    // Pasts in input order, and the present output that feeds each.
    std::vector<int> past_inputs, present_outputs;
    for (int i = 0; i < model.num_inputs(); ++i) {
      std::string name = model.input_info(i).name;
      if (name.rfind("past_", 0) != 0) continue;
      int out = model.find_output("present_" + name.substr(5));
      if (out < 0) throw std::runtime_error("input '" + name + "' has no present output");
      past_inputs.push_back(i);
      present_outputs.push_back(out);
    }
    std::vector<Tensor> pasts;
    for (int i : past_inputs) {
      const IngotTensorInfo& info = model.input_info(i);
      Tensor t{{}, {}, {kDLFloat, 32, 1}};
      for (int d = 0; d < info.ndim; ++d) t.shape.push_back(info.shape[d] < 0 ? 0 : info.shape[d]);
      pasts.push_back(std::move(t));
    }
    if (model.num_states() > 0) {
      const IngotStateInfo& st = model.state_info(0);
      std::printf("kv cache: %d states in the session, %lld entries each\n", model.num_states(),
                  static_cast<long long>(st.info.shape[st.axis]));
    }
    Tensor ids{{1, int64_t(o.prompt.size())}, {}, {kDLInt, 64, 1}};
    ids.bytes.resize(o.prompt.size() * sizeof(int64_t));
    std::memcpy(ids.bytes.data(), o.prompt.data(), ids.bytes.size());

    std::mt19937_64 rng(o.seed);
    std::vector<int64_t> generated;
    using Clock = std::chrono::steady_clock;
    double prefill_s = 0.0, decode_s = 0.0;
    for (int step = 0; step < o.tokens; ++step) {
      auto t0 = Clock::now();
      DLTensor ids_view = ids.view();
      session.set_input(ids_index, ids_view);
      for (size_t k = 0; k < pasts.size(); ++k) {
        DLTensor v = pasts[k].view();
        session.set_input(past_inputs[k], v);
      }
      session.run();
      // The presents become the next pasts (copied: the session overwrites its outputs).
      for (size_t k = 0; k < pasts.size(); ++k) {
        DLTensor p = session.output(present_outputs[k]);
        pasts[k].shape.assign(p.shape, p.shape + p.ndim);
        pasts[k].bytes.resize(size_t(elements(p)) * sizeof(float));
        std::memcpy(pasts[k].bytes.data(), p.data, pasts[k].bytes.size());
      }
      DLTensor logits = session.output(logits_index);
      const int64_t vocab = logits.shape[logits.ndim - 1];
      const float* last = static_cast<const float*>(logits.data) + (elements(logits) - vocab);
      int64_t token = choose(last, vocab, o, rng);
      (step == 0 ? prefill_s : decode_s) +=
          std::chrono::duration<double>(Clock::now() - t0).count();
      generated.push_back(token);
      ids.shape = {1, 1};
      ids.bytes.resize(sizeof(int64_t));
      std::memcpy(ids.bytes.data(), &token, sizeof(int64_t));
    }
    std::printf("tokens:");
    for (int64_t t : generated) std::printf(" %lld", static_cast<long long>(t));
    std::printf("\n");
    std::printf("prefill: %zu tokens in %.2f ms (%.1f tokens/s)\n", o.prompt.size(),
                prefill_s * 1e3, double(o.prompt.size()) / prefill_s);
    if (o.tokens > 1)
      std::printf("decode: %d tokens in %.2f ms (%.1f tokens/s)\n", o.tokens - 1, decode_s * 1e3,
                  double(o.tokens - 1) / decode_s);
    std::printf("peak memory: %.1f MB resident; artifact: %.1f MB\n", peak_resident_mb(),
                double(std::filesystem::file_size(o.artifact)) / 1e6);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ingot_generate: %s\n", e.what());
    return 1;
  }
  return 0;
}
