// compare_outputs: both artifacts loaded with the runtime, run on the same inputs.
#include "driver/output_accuracy.h"

#include <dlpack/dlpack.h>
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>

#include "ingot/runtime.h"
#include "support/error.h"
#include "support/npz.h"

namespace ingot::driver {

namespace {

// A CPU view of array `a` of the .npz `npz`.
DLTensor view_of(NpyArray& a, const std::string& npz) {
  auto type = npy_element_type(a.dtype);
  if (!type) fail_user("--accuracy-inputs '{}': array '{}' has an unsupported dtype", npz, a.name);
  DLTensor t{};
  t.data = a.data.data();
  t.device = {kDLCPU, 0};
  t.ndim = int32_t(a.shape.size());
  t.dtype = DLDataType{type->code, type->bits, 1};
  t.shape = a.shape.data();
  return t;
}

// One artifact's float32 outputs (by name) on `inputs`.
std::map<std::string, std::vector<float>> run_artifact(const std::string& path,
                                                       std::vector<NpyArray>& inputs,
                                                       const std::string& npz) {
  IngotModel* model = nullptr;
  if (ingot_model_load(path.c_str(), &model) != INGOT_OK)
    fail_user("--accuracy-inputs: cannot load '{}': {}", path, ingot_last_error());
  std::unique_ptr<IngotModel, void (*)(IngotModel*)> m(model, ingot_model_free);
  IngotSession* session = nullptr;
  if (ingot_session_create(model, &session) != INGOT_OK)
    fail_user("--accuracy-inputs: {}", ingot_last_error());
  std::unique_ptr<IngotSession, void (*)(IngotSession*)> s(session, ingot_session_free);
  for (int32_t i = 0; i < ingot_model_num_inputs(model); ++i) {
    const IngotTensorInfo* info = ingot_model_input_info(model, i);
    NpyArray* a = nullptr;
    for (NpyArray& x : inputs)
      if (x.name == info->name) a = &x;
    if (a == nullptr) fail_user("--accuracy-inputs '{}': no array for input '{}'", npz, info->name);
    DLTensor t = view_of(*a, npz);
    if (ingot_session_set_input(session, i, &t) != INGOT_OK)
      fail_user("--accuracy-inputs '{}': {}", npz, ingot_last_error());
  }
  // A --kv-cache artifact's caches: loaded from the arrays named after them (all of them, of one
  // length), else empty.
  int32_t given = 0;
  int64_t first_length = -1;
  for (int32_t k = 0; k < ingot_model_num_states(model); ++k) {
    const IngotStateInfo* st = ingot_model_state_info(model, k);
    for (NpyArray& x : inputs) {
      if (x.name != st->info.name) continue;
      DLTensor t = view_of(x, npz);
      int64_t length = -1;
      if (ingot_session_set_state(session, k, &t) != INGOT_OK ||
          ingot_session_state_length(session, &length) != INGOT_OK)
        fail_user("--accuracy-inputs '{}': {}", npz, ingot_last_error());
      if (first_length >= 0 && length != first_length)
        fail_user(
            "--accuracy-inputs '{}': cache '{}' has {} entries, another {}; the caches "
            "share one length",
            npz, x.name, length, first_length);
      first_length = length;
      ++given;
    }
  }
  if (given != 0 && given != ingot_model_num_states(model))
    fail_user("--accuracy-inputs '{}': it gives {} of the model's {} caches; give all or none", npz,
              given, ingot_model_num_states(model));
  if (ingot_session_run(session) != INGOT_OK)
    fail_user("--accuracy-inputs '{}': {}", npz, ingot_last_error());
  std::map<std::string, std::vector<float>> out;
  for (int32_t i = 0; i < ingot_model_num_outputs(model); ++i) {
    DLTensor v{};
    if (ingot_session_output(session, i, &v) != INGOT_OK) fail_internal("{}", ingot_last_error());
    if (v.dtype.code != kDLFloat || v.dtype.bits != 32) continue;
    int64_t n = 1;
    for (int d = 0; d < v.ndim; ++d) n *= v.shape[d];
    const float* p = static_cast<const float*>(v.data);
    out[ingot_model_output_info(model, i)->name].assign(p, p + n);
  }
  return out;
}

}  // namespace

std::vector<OutputError> compare_outputs(const std::string& reference_artifact,
                                         const std::string& candidate_artifact,
                                         const std::string& inputs_npz) {
  std::vector<NpyArray> inputs = read_npz(inputs_npz);
  auto ref = run_artifact(reference_artifact, inputs, inputs_npz);
  auto got = run_artifact(candidate_artifact, inputs, inputs_npz);
  std::vector<OutputError> errors;
  for (const auto& [name, f] : ref) {
    const std::vector<float>& q = got.at(name);
    INGOT_ICHECK(q.size() == f.size(), "output '{}' has {} and {} elements", name, q.size(),
                 f.size());
    double max_f = 0, max_d = 0, sum_f = 0, sum_d = 0;
    for (size_t k = 0; k < f.size(); ++k) {
      double d = std::fabs(double(q[k]) - double(f[k]));
      max_f = std::max(max_f, std::fabs(double(f[k])));
      max_d = std::max(max_d, d);
      sum_f += std::fabs(double(f[k]));
      sum_d += d;
    }
    errors.push_back({name, max_f > 0 ? max_d / max_f : max_d, sum_f > 0 ? sum_d / sum_f : sum_d});
  }
  return errors;
}

}  // namespace ingot::driver
