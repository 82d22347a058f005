// Header-only C++17 wrapper over the ingot runtime C API: RAII Model and Session, failures thrown
// as ingot::rt::Error carrying the runtime's message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ingot/runtime.h"

namespace ingot::rt {

class Error : public std::runtime_error {
 public:
  Error(ingot_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  ingot_status status() const { return status_; }

 private:
  ingot_status status_;
};

inline void check(ingot_status status) {
  if (status != INGOT_OK) throw Error(status, ingot_last_error());
}

inline void set_num_threads(int n) {
  check(ingot_set_num_threads(n));
}
inline int num_threads() {
  return ingot_get_num_threads();
}

class Model {
 public:
  explicit Model(const std::string& path) { check(ingot_model_load(path.c_str(), &model_)); }
  // Loads the record only, even where this CPU lacks the artifact's ISA (sessions are refused).
  struct ForInspection {};
  Model(const std::string& path, ForInspection) {
    check(ingot_model_load_for_inspection(path.c_str(), &model_));
  }
  ~Model() { ingot_model_free(model_); }
  Model(Model&& o) noexcept : model_(std::exchange(o.model_, nullptr)) {}
  Model& operator=(Model&& o) noexcept {
    std::swap(model_, o.model_);
    return *this;
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  int num_inputs() const { return ingot_model_num_inputs(model_); }
  int num_outputs() const { return ingot_model_num_outputs(model_); }
  const IngotTensorInfo& input_info(int i) const {
    return *non_null(ingot_model_input_info(model_, i));
  }
  const IngotTensorInfo& output_info(int i) const {
    return *non_null(ingot_model_output_info(model_, i));
  }
  // Index of the named input/output, or -1.
  int find_input(const std::string& name) const {
    return ingot_model_find_input(model_, name.c_str());
  }
  int find_output(const std::string& name) const {
    return ingot_model_find_output(model_, name.c_str());
  }
  // States (a key/value cache kept in the session; ingot compile --kv-cache).
  int num_states() const { return ingot_model_num_states(model_); }
  const IngotStateInfo& state_info(int i) const {
    const IngotStateInfo* info = ingot_model_state_info(model_, i);
    if (info == nullptr) throw Error(INGOT_ERR_INVALID_ARGUMENT, ingot_last_error());
    return *info;
  }
  const IngotArtifact& artifact() const { return *ingot_model_artifact(model_); }
  const IngotModel* get() const { return model_; }

 private:
  static const IngotTensorInfo* non_null(const IngotTensorInfo* info) {
    if (info == nullptr) throw Error(INGOT_ERR_INVALID_ARGUMENT, ingot_last_error());
    return info;
  }
  IngotModel* model_ = nullptr;
};

// Per-kernel profile entry (see Session::kernel_times).
struct KernelTime {
  std::string name;
  double total_seconds;
  int64_t calls;
};

class Session {
 public:
  explicit Session(const Model& model) { check(ingot_session_create(model.get(), &session_)); }
  ~Session() { ingot_session_free(session_); }
  Session(Session&& o) noexcept : session_(std::exchange(o.session_, nullptr)) {}
  Session& operator=(Session&& o) noexcept {
    std::swap(session_, o.session_);
    return *this;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Zero-copy when possible: `tensor`'s data must outlive the next run().
  void set_input(int index, const DLTensor& tensor) {
    check(ingot_session_set_input(session_, index, &tensor));
  }
  void set_input_copy(int index, const void* data, size_t nbytes) {
    check(ingot_session_set_input_copy(session_, index, data, nbytes));
  }
  void run() { check(ingot_session_run(session_)); }
  DLTensor output(int index) const {
    DLTensor view;
    check(ingot_session_output(session_, index, &view));
    return view;
  }
  // The states' shared length (entries along their axis); set 0 to start a new sequence.
  int64_t state_length() const {
    int64_t n = 0;
    check(ingot_session_state_length(session_, &n));
    return n;
  }
  void set_state_length(int64_t length) { check(ingot_session_set_state_length(session_, length)); }
  // Copies `tensor` in as state `index`'s valid entries (and sets the length to its).
  void set_state(int index, const DLTensor& tensor) {
    check(ingot_session_set_state(session_, index, &tensor));
  }
  // A strided view of state `index`'s valid entries.
  DLTensor state(int index) const {
    DLTensor view;
    check(ingot_session_state(session_, index, &view));
    return view;
  }
  void set_profiling(bool enable) { check(ingot_session_set_profiling(session_, enable ? 1 : 0)); }
  std::vector<KernelTime> kernel_times(const Model& model) const {
    std::vector<KernelTime> out;
    const IngotArtifact& a = model.artifact();
    for (int32_t k = 0; k < a.num_kernels; ++k) {
      KernelTime t{a.kernels[k].name ? a.kernels[k].name : "", 0.0, 0};
      check(ingot_session_kernel_time(session_, k, &t.total_seconds, &t.calls));
      out.push_back(std::move(t));
    }
    return out;
  }
  IngotSession* get() const { return session_; }

 private:
  IngotSession* session_ = nullptr;
};

}  // namespace ingot::rt
