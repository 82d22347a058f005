// Running an artifact for `ingot run` and `ingot measure` (see run_session.h).
#include "tools/ingot/run_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>

#include "support/bfloat16.h"
#include "support/error.h"
#include "support/host_caches.h"

namespace ingot::cli {

std::string shape_string(const int64_t* shape, int ndim) {
  std::string s = "[";
  for (int i = 0; i < ndim; ++i) s += fmt::format("{}{}", i ? "," : "", shape[i]);
  return s + "]";
}

std::string dtype_string(IngotDType dtype) {
  char buf[64];
  return ingot_dtype_name(dtype, buf, sizeof(buf));
}

size_t tensor_bytes(const IngotTensorInfo& info) {
  size_t n = ingot_dtype_bytes(info.dtype);
  for (int i = 0; i < info.ndim; ++i) n *= static_cast<size_t>(info.shape[i]);
  return n;
}

namespace {

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // zero / subnormal: flush (fill values only)
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13));
}

// Stores `value` as one element of `dtype` at `dst`.
void store_element(IngotDType dtype, double value, uint8_t* dst) {
  auto put = [dst](auto v) { std::memcpy(dst, &v, sizeof(v)); };
  switch (dtype.code) {
    case 2:  // float
      if (dtype.bits == 16)
        put(float_to_half(static_cast<float>(value)));
      else if (dtype.bits == 32)
        put(static_cast<float>(value));
      else if (dtype.bits == 64)
        put(value);
      return;
    case 4:  // bfloat16: the upper half of a float32, rounded to nearest even
      put(float_to_bfloat16_bits(static_cast<float>(value)));
      return;
    default: {  // int, uint, bool: truncate like numpy's astype
      auto i = static_cast<int64_t>(value);
      std::memcpy(dst, &i, std::min<size_t>(8, ingot_dtype_bytes(dtype)));
      return;
    }
  }
}

// Data for an input absent from --inputs: zeros, ones, or (tvmc's default) uniform [0, 1) cast
// to the input's dtype, from a fixed seed so runs are reproducible.
std::vector<uint8_t> fill_input(const IngotTensorInfo& info, const std::string& mode,
                                std::mt19937& rng) {
  std::vector<uint8_t> data(tensor_bytes(info));
  if (mode == "zeros") return data;
  size_t elem = ingot_dtype_bytes(info.dtype);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (size_t off = 0; off + elem <= data.size(); off += elem) {
    store_element(info.dtype, mode == "ones" ? 1.0 : uniform(rng), data.data() + off);
  }
  return data;
}

DLTensor view_of(NpyArray& a) {
  auto type = npy_element_type(a.dtype);
  INGOT_ICHECK(type.has_value(), "read_npz returned unsupported dtype {}", a.dtype);
  DLTensor t{};
  t.data = a.data.data();
  t.device = {kDLCPU, 0};
  t.ndim = static_cast<int>(a.shape.size());
  t.dtype = {type->code, type->bits, 1};
  t.shape = a.shape.data();
  return t;
}

// Per session: the state length every run starts from (`ingot run` of a --kv-cache artifact
// repeats one step, not a growing sequence).
std::map<const IngotSession*, int64_t>& start_lengths() {
  static std::map<const IngotSession*, int64_t> lengths;
  return lengths;
}

// The index of the state named `name`, or -1.
int find_state(const rt::Model& model, const std::string& name) {
  for (int k = 0; k < model.num_states(); ++k)
    if (name == model.state_info(k).info.name) return k;
  return -1;
}

std::string input_names(const rt::Model& model) {
  std::string names;
  for (int i = 0; i < model.num_inputs(); ++i) {
    names += fmt::format("{}{}", i ? ", " : "", model.input_info(i).name);
  }
  return names;
}

}  // namespace

// Binds every input: from the .npz by name, the rest filled (a specialised input with its
// compile-time value). Returns the owned buffers.
std::vector<NpyArray> bind_inputs(const std::string& inputs, const std::string& fill_mode,
                                  const rt::Model& model, rt::Session& session) {
  std::vector<NpyArray> arrays;
  if (!inputs.empty()) arrays = read_npz(inputs);
  arrays.reserve(arrays.size() + size_t(model.num_inputs()));  // the bound views stay in place
  std::vector<bool> bound(static_cast<size_t>(model.num_inputs()), false);
  int states_given = 0;
  int64_t first_length = -1;
  std::string first_state;
  for (NpyArray& a : arrays) {
    if (int k = find_state(model, a.name); k >= 0) {  // a cache's past: the state's entries
      session.set_state(k, view_of(a));
      const int64_t length = session.state_length();
      if (first_length >= 0 && length != first_length)
        fail_user("'{}': cache '{}' has {} entries, but '{}' has {}; the caches share one length",
                  inputs, a.name, length, first_state, first_length);
      first_length = length;
      first_state = a.name;
      ++states_given;
      continue;
    }
    int index = model.find_input(a.name);
    if (index < 0) {
      fail_user("'{}' has an array '{}' that is not an input of model '{}' (inputs: {})", inputs,
                a.name, model.artifact().model_name, input_names(model));
    }
    session.set_input(index, view_of(a));  // zero-copy; `arrays` outlives the runs
    bound[static_cast<size_t>(index)] = true;
  }
  if (states_given > 0 && states_given != model.num_states())
    fail_user(
        "'{}' gives {} of the model's {} cache states; give all of them (or none, to start "
        "from empty caches)",
        inputs, states_given, model.num_states());
  // Set or cleared for every session: a freed session's address may be reused by another.
  if (model.num_states() > 0)
    start_lengths()[session.get()] = session.state_length();
  else
    start_lengths().erase(session.get());
  std::mt19937 rng(0);
  for (int i = 0; i < model.num_inputs(); ++i) {
    if (bound[static_cast<size_t>(i)]) continue;
    const IngotTensorInfo& info = model.input_info(i);
    if (info.specialized_value != nullptr) {  // the one value the artifact runs with
      session.set_input_copy(i, info.specialized_value, tensor_bytes(info));
      continue;
    }
    for (int d = 0; d < info.ndim; ++d) {
      if (info.shape[d] == -1)
        fail_user(
            "input '{}' has a symbolic dim '{}': give its value in --inputs (the shape "
            "binds the symbol)",
            info.name, info.dim_names[d]);
    }
    std::vector<uint8_t> data = fill_input(info, fill_mode, rng);
    std::string descr = npy_descr({info.dtype.code, info.dtype.bits});
    if (descr.empty()) {  // (no .npy form) the session's own copy
      session.set_input_copy(i, data.data(), data.size());
      continue;
    }
    // Bound in place like an --inputs array, so --cache-state model can read it back.
    NpyArray& a = arrays.emplace_back();
    a.name = info.name;
    a.dtype = descr;
    a.shape.assign(info.shape, info.shape + info.ndim);
    a.data = std::move(data);
    session.set_input(i, view_of(a));
  }
  return arrays;
}

void run_step(rt::Session& session) {
  auto it = start_lengths().find(session.get());
  if (it != start_lengths().end()) session.set_state_length(it->second);
  session.run();
}

ModelState ModelState::of(const rt::Model& model, const std::vector<NpyArray>& inputs) {
  return {&inputs, artifact_memory(model)};
}

size_t ModelState::memory_bytes() const {
  size_t bytes = 0;
  for (const MemoryRange& r : memory) bytes += r.bytes;
  return bytes;
}

void CacheFlusher::stream() {
  if (buf_.empty()) {
    uint64_t llc = last_level_cache_bytes();
    size_t bytes = llc > 0 ? std::min(size_t(llc) * 2, size_t(256) << 20) : size_t(64) << 20;
    buf_.assign(bytes / sizeof(uint64_t), 1);
  }
  uint64_t sum = 0;
  for (uint64_t& v : buf_) sum += v++;
  sink_ = sum;
}

void CacheFlusher::flush(const ModelState* model) {
  if (model == nullptr || model->memory.empty() || !evict_lines(model->memory)) stream();
  if (model == nullptr || model->inputs == nullptr) return;
  uint64_t sum = 0;
  for (const NpyArray& a : *model->inputs)  // a byte per 64-byte line
    for (size_t k = 0; k < a.data.size(); k += 64) sum += a.data[k];
  sink_ = sum;
}

// `repeat` samples, each the mean of `number` runs; with a flusher, each run starts after a
// flush that is not timed.
std::vector<double> time_runs(rt::Session& session, int repeat, int number, CacheFlusher* flusher,
                              const ModelState* model) {
  std::vector<double> samples;
  for (int r = 0; r < repeat; ++r) {
    std::chrono::duration<double, std::milli> elapsed{0};
    auto start = std::chrono::steady_clock::now();
    for (int n = 0; n < number; ++n) {
      if (flusher) {
        flusher->flush(model);
        start = std::chrono::steady_clock::now();
      }
      run_step(session);
      if (flusher) elapsed += std::chrono::steady_clock::now() - start;
    }
    if (!flusher) elapsed = std::chrono::steady_clock::now() - start;
    samples.push_back(elapsed.count() / number);
  }
  return samples;
}

namespace {

// The elements of a strided CPU view, row-major.
std::vector<uint8_t> dense_bytes(const DLTensor& view, size_t elem) {
  int64_t count = 1;
  for (int d = 0; d < view.ndim; ++d) count *= view.shape[d];
  std::vector<uint8_t> out(static_cast<size_t>(count) * elem);
  std::vector<int64_t> idx(static_cast<size_t>(view.ndim), 0);
  const auto* base = static_cast<const uint8_t*>(view.data);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (int d = 0; d < view.ndim; ++d)
      offset += idx[size_t(d)] * (view.strides ? view.strides[d] : 1);
    std::memcpy(out.data() + static_cast<size_t>(n) * elem, base + offset * int64_t(elem), elem);
    for (int d = view.ndim - 1; d >= 0 && ++idx[size_t(d)] == view.shape[d]; --d)
      idx[size_t(d)] = 0;
  }
  return out;
}

}  // namespace

void write_outputs(const std::string& path, const rt::Session& session, const rt::Model& model) {
  std::vector<NpyArray> arrays;
  for (int i = 0; i < model.num_outputs(); ++i) {
    const IngotTensorInfo& info = model.output_info(i);
    std::string descr = npy_descr({info.dtype.code, info.dtype.bits});
    if (descr.empty() || (info.dtype.lanes > 1)) {
      fail_user("output '{}' has dtype {}, which a .npz file cannot hold", info.name,
                dtype_string(info.dtype));
    }
    DLTensor view = session.output(i);  // this run's shape (symbolic dims bound)
    const auto* p = static_cast<const uint8_t*>(view.data);
    size_t bytes = ingot_dtype_bytes(info.dtype);
    for (int d = 0; d < view.ndim; ++d) bytes *= static_cast<size_t>(view.shape[d]);
    arrays.push_back({info.name, descr, std::vector<int64_t>(view.shape, view.shape + view.ndim),
                      std::vector<uint8_t>(p, p + bytes)});
  }
  // A cache's entries after the run (the model's present) under the state's name.
  for (int k = 0; k < model.num_states(); ++k) {
    const IngotTensorInfo& info = model.state_info(k).info;
    DLTensor view = session.state(k);
    arrays.push_back({info.name, npy_descr({info.dtype.code, info.dtype.bits}),
                      std::vector<int64_t>(view.shape, view.shape + view.ndim),
                      dense_bytes(view, ingot_dtype_bytes(info.dtype))});
  }
  write_npz(path, arrays);
}

// --min-repeat-ms (as TVM's time evaluator): runs the model for about `min_ms` more as a warm-up
// (threads awake, the clock up, caches and pages warm), and returns how many runs a sample needs
// to last at least `min_ms` (at least `number`), so that short kernels are not timed in
// fractions of a millisecond.
int runs_for_min_ms(rt::Session& session, double min_ms, int number, bool cache_flush) {
  auto start = std::chrono::steady_clock::now();
  int runs = 0;
  std::chrono::duration<double, std::milli> elapsed{0};
  do {
    run_step(session);
    ++runs;
    elapsed = std::chrono::steady_clock::now() - start;
  } while (elapsed.count() < min_ms);
  if (cache_flush) return number;
  double per_run = elapsed.count() / runs;
  return std::max(number, int(std::ceil(min_ms / std::max(per_run, 1e-6))));
}

}  // namespace ingot::cli
