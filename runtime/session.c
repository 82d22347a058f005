/* Sessions: per-session workspace and output buffers, input binding (zero-copy or copied), the
 * service table handed to the artifact, running, and output views. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void session_set_error(void* ctx, const char* message) {
  IngotSession* s = (IngotSession*)ctx;
  pthread_mutex_lock(&s->error_lock);
  if (!s->has_run_error) {
    snprintf(s->run_error, sizeof(s->run_error), "%s", message ? message : "(no message)");
    s->has_run_error = 1;
  }
  pthread_mutex_unlock(&s->error_lock);
}

static void session_kernel_begin(void* ctx, int32_t kernel) {
  IngotSession* s = (IngotSession*)ctx;
  if (kernel >= 0 && kernel < s->model->artifact->num_kernels) {
    s->kernel_start[kernel] = ingot_now_seconds();
  }
}

static void session_kernel_end(void* ctx, int32_t kernel) {
  IngotSession* s = (IngotSession*)ctx;
  if (kernel >= 0 && kernel < s->model->artifact->num_kernels) {
    s->kernel_total[kernel] += ingot_now_seconds() - s->kernel_start[kernel];
    s->kernel_calls[kernel] += 1;
  }
}

static ingot_status check_session(const IngotSession* s, const char* fn) {
  if (s == NULL) return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "%s: session is NULL", fn);
  return INGOT_OK;
}

ingot_status ingot_session_enter(IngotSession* s, const char* fn) {
  ingot_status st = check_session(s, fn);
  if (st != INGOT_OK) return st;
  int expected = 0;
  if (!atomic_compare_exchange_strong(&s->busy, &expected, 1)) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "%s: the session is in use by another thread (a session serves one thread "
                      "at a time; create one session per thread)",
                      fn);
  }
  return INGOT_OK;
}

void ingot_session_leave(IngotSession* s) {
  atomic_store(&s->busy, 0);
}

static ingot_status check_input_index(const IngotSession* s, int32_t index) {
  int32_t n = s->model->artifact->num_inputs;
  if (index < 0 || index >= n) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input index %d out of range [0, %d)", index, n);
  }
  return INGOT_OK;
}

INGOT_API ingot_status ingot_session_create(const IngotModel* model, IngotSession** out) {
  if (out == NULL)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_session_create: out is NULL");
  *out = NULL;
  if (model == NULL) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_session_create: model is NULL");
  }
  const IngotArtifact* a = model->artifact;
  const int on_device = a->device_type != kDLCPU;
  if (on_device && model->device_ops == NULL) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "model '%s' was loaded for inspection: its device code was not built",
                      a->model_name ? a->model_name : "");
  }
  /* Again here: a model loaded for inspection skipped the check at load. */
  ingot_status isa = ingot_check_isa(model->path, a->isa_features);
  if (isa != INGOT_OK) return isa;
  IngotSession* s = calloc(1, sizeof(IngotSession));
  if (s == NULL) return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory creating a session");
  s->model = model;
  pthread_mutex_init(&s->error_lock, NULL);
  size_t nin = (size_t)a->num_inputs + 1, nout = (size_t)a->num_outputs + 1;
  size_t nstate = (size_t)a->num_states + 1;
  size_t nk = (size_t)a->num_kernels + 1;
  s->inputs = calloc(nin, sizeof(void*));
  s->input_copies = calloc(nin, sizeof(void*));
  s->outputs = calloc(nout + nstate, sizeof(void*)); /* the outputs, then the states */
  s->state_view_shapes = calloc(nstate, sizeof(int64_t*));
  s->state_view_strides = calloc(nstate, sizeof(int64_t*));
  s->output_shapes = calloc(nout, sizeof(int64_t*));
  s->kernel_start = calloc(nk, sizeof(double));
  s->kernel_total = calloc(nk, sizeof(double));
  s->kernel_calls = calloc(nk, sizeof(int64_t));
  size_t out_dims = 1;
  for (int32_t i = 0; i < a->num_outputs; ++i) out_dims += (size_t)a->outputs[i].ndim;
  s->input_shapes = calloc(nin, sizeof(int64_t*));
  s->symbols = calloc((size_t)a->num_symbols + 1, sizeof(int64_t));
  s->output_dims = calloc(out_dims, sizeof(int64_t));
  s->output_capacity = calloc(nout, sizeof(size_t));
  /* A plan that is a function of the symbols is sized by the first run (ingot_size_workspace). */
  int sized_per_run = a->workspace_fn != NULL;
  if (!on_device && !sized_per_run) {
    s->workspace =
        a->workspace_bytes > SIZE_MAX ? NULL : ingot_aligned_alloc((size_t)a->workspace_bytes);
    s->workspace_capacity = (size_t)a->workspace_bytes;
  }
  int ok = s->inputs && s->input_copies && s->outputs && s->output_shapes && s->kernel_start &&
           s->kernel_total && s->kernel_calls && (on_device || sized_per_run || s->workspace) &&
           s->input_shapes && s->symbols && s->output_dims && s->output_capacity &&
           s->state_view_shapes && s->state_view_strides;
  for (int32_t i = 0; ok && i < a->num_inputs; ++i) {
    s->input_shapes[i] = calloc((size_t)a->inputs[i].ndim + 1, sizeof(int64_t));
    ok = s->input_shapes[i] != NULL;
  }
  for (int32_t i = 0; ok && i < a->num_outputs; ++i) {
    const IngotTensorInfo* info = &a->outputs[i];
    s->outputs[i] = ingot_aligned_alloc(model->output_bytes[i]);
    s->output_capacity[i] = model->output_bytes[i];
    s->output_shapes[i] = calloc((size_t)info->ndim + 1, sizeof(int64_t));
    ok = s->outputs[i] && s->output_shapes[i];
    if (ok && info->ndim > 0)
      memcpy(s->output_shapes[i], info->shape, sizeof(int64_t) * info->ndim);
  }
  for (int32_t k = 0; ok && k < a->num_states; ++k) {
    const IngotTensorInfo* info = &a->states[k].info;
    s->outputs[a->num_outputs + k] = ingot_aligned_alloc(ingot_tensor_bytes(info));
    s->state_view_shapes[k] = calloc((size_t)info->ndim, sizeof(int64_t));
    s->state_view_strides[k] = calloc((size_t)info->ndim, sizeof(int64_t));
    ok = s->outputs[a->num_outputs + k] && s->state_view_shapes[k] && s->state_view_strides[k];
  }
  if (!ok) {
    ingot_session_free(s);
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY,
                      "out of memory creating a session of model '%s' (workspace %llu bytes)",
                      a->model_name ? a->model_name : "", (unsigned long long)a->workspace_bytes);
  }
  if (on_device) {
    ingot_status st = model->device_ops->session_init(model, &s->device);
    if (st != INGOT_OK) {
      ingot_session_free(s);
      return st;
    }
  }
  s->services.abi_version = INGOT_ABI_VERSION;
  s->services.struct_size = (uint32_t)sizeof(IngotServices);
  s->services.ctx = s;
  s->services.parallel_for = ingot_pool_parallel_for;
  s->services.set_error = session_set_error;
  *out = s;
  return INGOT_OK;
}

INGOT_API void ingot_session_free(IngotSession* s) {
  if (s == NULL) return;
  const IngotArtifact* a = s->model->artifact;
  if (s->device != NULL) s->model->device_ops->session_free(a, s->device);
  for (int32_t i = 0; s->input_copies && i < a->num_inputs; ++i)
    ingot_aligned_free(s->input_copies[i]);
  for (int32_t i = 0; i < a->num_outputs; ++i) {
    if (s->outputs) ingot_aligned_free(s->outputs[i]);
    if (s->output_shapes) free(s->output_shapes[i]);
  }
  for (int32_t k = 0; k < a->num_states; ++k) {
    if (s->outputs) ingot_aligned_free(s->outputs[a->num_outputs + k]);
    if (s->state_view_shapes) free(s->state_view_shapes[k]);
    if (s->state_view_strides) free(s->state_view_strides[k]);
  }
  free(s->state_view_shapes);
  free(s->state_view_strides);
  for (int32_t i = 0; s->input_shapes && i < a->num_inputs; ++i) free(s->input_shapes[i]);
  free(s->input_shapes);
  free(s->symbols);
  free(s->output_dims);
  free(s->output_capacity);
  free(s->inputs);
  free(s->input_copies);
  free(s->outputs);
  free(s->output_shapes);
  free(s->kernel_start);
  free(s->kernel_total);
  free(s->kernel_calls);
  ingot_aligned_free(s->workspace);
  pthread_mutex_destroy(&s->error_lock);
  free(s);
}

/* The session-owned buffer of input `index`, allocated on first use. */
static void* input_copy_buffer(IngotSession* s, int32_t index) {
  if (s->input_copies[index] == NULL) {
    s->input_copies[index] = ingot_aligned_alloc(s->model->input_bytes[index]);
  }
  return s->input_copies[index];
}

static ingot_status session_set_input_unguarded(IngotSession* s, int32_t index,
                                                const DLTensor* tensor) {
  ingot_status st = check_input_index(s, index);
  if (st != INGOT_OK) return st;
  const IngotTensorInfo* info = &s->model->artifact->inputs[index];
  int compact = 0;
  st = ingot_check_input_tensor(info, tensor, &compact);
  if (st != INGOT_OK) {
    s->inputs[index] = NULL;
    return st;
  }
  if (info->ndim > 0) memcpy(s->input_shapes[index], tensor->shape, sizeof(int64_t) * info->ndim);
  /* An empty tensor may carry a NULL data pointer; give the artifact a valid one instead. */
  if (compact && tensor->data != NULL) {
    s->inputs[index] = (char*)tensor->data + tensor->byte_offset;
    return INGOT_OK;
  }
  void* buf = input_copy_buffer(s, index);
  if (buf == NULL)
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "input '%s': out of memory", info->name);
  ingot_copy_to_dense(tensor, ingot_dtype_bytes(info->dtype), buf);
  s->inputs[index] = buf;
  return INGOT_OK;
}

static ingot_status session_set_input_copy_unguarded(IngotSession* s, int32_t index,
                                                     const void* data, size_t nbytes) {
  ingot_status st = check_input_index(s, index);
  if (st != INGOT_OK) return st;
  const IngotTensorInfo* info = &s->model->artifact->inputs[index];
  size_t want = s->model->input_bytes[index];
  for (int32_t d = 0; d < info->ndim; ++d) {
    if (info->shape[d] == -1)
      return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                        "input '%s' has a symbolic dim ('%s'): set it with ingot_session_set_input "
                        "and a DLTensor, which carries its shape",
                        info->name, info->dim_names ? info->dim_names[d] : "");
  }
  if (nbytes != want) {
    s->inputs[index] = NULL;
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s': expected %zu bytes, got %zu",
                      info->name, want, nbytes);
  }
  if (data == NULL && nbytes != 0) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s': data is NULL", info->name);
  }
  void* buf = input_copy_buffer(s, index);
  if (buf == NULL)
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "input '%s': out of memory", info->name);
  if (nbytes) memcpy(buf, data, nbytes);
  s->inputs[index] = buf;
  return INGOT_OK;
}

static ingot_status session_run_unguarded(IngotSession* s) {
  const IngotArtifact* a = s->model->artifact;
  for (int32_t i = 0; i < a->num_inputs; ++i) {
    if (s->inputs[i] == NULL) {
      return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s' was not set", a->inputs[i].name);
    }
  }
  /* Checked on every run: a zero-copy input may have changed since it was set. */
  ingot_status st = ingot_check_specialized_inputs(s->model, (void* const*)s->inputs);
  if (st != INGOT_OK) return st;
  if (a->num_symbols > 0) {
    st = ingot_bind_symbols(s);
    if (st == INGOT_OK) st = ingot_check_state_room(s);
    if (st == INGOT_OK) st = ingot_update_output_shapes(s);
    if (st == INGOT_OK && a->workspace_fn != NULL) st = ingot_size_workspace(s);
    if (st != INGOT_OK) return st;
  }
  s->has_run_error = 0;
  s->run_error[0] = '\0';
  s->services.kernel_begin = s->profiling ? session_kernel_begin : NULL;
  s->services.kernel_end = s->profiling ? session_kernel_end : NULL;
  if (s->device != NULL)
    return s->model->device_ops->session_run(s, s->services.kernel_begin, s->services.kernel_end);
  int32_t rc = a->entry(&s->services, (void* const*)s->inputs, (void* const*)s->outputs,
                        s->workspace, a->num_symbols > 0 ? s->symbols : NULL);
  if (rc == 0 && !s->has_run_error) {
    ingot_advance_states(s);
    return a->value_fn != NULL ? ingot_read_output_shapes(s) : INGOT_OK;
  }
  const char* name = a->model_name ? a->model_name : "";
  if (s->has_run_error) {
    return ingot_fail(INGOT_ERR_RUN, "model '%s' failed: %s", name, s->run_error);
  }
  return ingot_fail(INGOT_ERR_RUN, "model '%s' failed with status %d", name, (int)rc);
}

static ingot_status session_output_unguarded(const IngotSession* s, int32_t index,
                                             DLTensor* out_view) {
  const IngotArtifact* a = s->model->artifact;
  if (index < 0 || index >= a->num_outputs) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "output index %d out of range [0, %d)", index,
                      a->num_outputs);
  }
  if (out_view == NULL)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_session_output: out_view is NULL");
  const IngotTensorInfo* info = &a->outputs[index];
  memset(out_view, 0, sizeof(*out_view));
  out_view->data = s->outputs[index];
  out_view->device.device_type = kDLCPU;
  out_view->device.device_id = 0;
  out_view->ndim = info->ndim;
  out_view->dtype.code = info->dtype.code;
  out_view->dtype.bits = info->dtype.bits;
  out_view->dtype.lanes = info->dtype.lanes == 0 ? 1 : info->dtype.lanes;
  out_view->shape = s->output_shapes[index];
  out_view->strides = NULL;
  out_view->byte_offset = 0;
  return INGOT_OK;
}

static ingot_status session_set_profiling_unguarded(IngotSession* s, int enable) {
  s->profiling = enable != 0;
  if (s->profiling) {
    int32_t n = s->model->artifact->num_kernels;
    for (int32_t i = 0; i < n; ++i) {
      s->kernel_total[i] = 0;
      s->kernel_calls[i] = 0;
    }
  }
  return INGOT_OK;
}

static ingot_status session_kernel_time_unguarded(const IngotSession* s, int32_t kernel_index,
                                                  double* total_seconds, int64_t* calls) {
  int32_t n = s->model->artifact->num_kernels;
  if (kernel_index < 0 || kernel_index >= n) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "kernel index %d out of range [0, %d)",
                      kernel_index, n);
  }
  if (total_seconds) *total_seconds = s->kernel_total[kernel_index];
  if (calls) *calls = s->kernel_calls[kernel_index];
  return INGOT_OK;
}

/* The API: each call holds the session for its duration (ingot_session_enter, which also refuses
 * a NULL session); the functions above assume a held, non-NULL session. */
INGOT_API ingot_status ingot_session_set_input(IngotSession* s, int32_t index,
                                               const DLTensor* tensor) {
  IngotSession* guarded = s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_set_input");
  if (st != INGOT_OK) return st;
  st = session_set_input_unguarded(s, index, tensor);
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_set_input_copy(IngotSession* s, int32_t index,
                                                    const void* data, size_t nbytes) {
  IngotSession* guarded = s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_set_input_copy");
  if (st != INGOT_OK) return st;
  st = session_set_input_copy_unguarded(s, index, data, nbytes);
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_run(IngotSession* s) {
  IngotSession* guarded = s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_run");
  if (st != INGOT_OK) return st;
  st = session_run_unguarded(s);
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_output(const IngotSession* s, int32_t index,
                                            DLTensor* out_view) {
  IngotSession* guarded = (IngotSession*)s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_output");
  if (st != INGOT_OK) return st;
  st = session_output_unguarded(s, index, out_view);
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_set_profiling(IngotSession* s, int enable) {
  IngotSession* guarded = s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_set_profiling");
  if (st != INGOT_OK) return st;
  st = session_set_profiling_unguarded(s, enable);
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_kernel_time(const IngotSession* s, int32_t kernel_index,
                                                 double* total_seconds, int64_t* calls) {
  IngotSession* guarded = (IngotSession*)s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_kernel_time");
  if (st != INGOT_OK) return st;
  st = session_kernel_time_unguarded(s, kernel_index, total_seconds, calls);
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_set_num_threads(IngotSession* s, int n) {
  ingot_status st = ingot_session_enter(s, "ingot_session_set_num_threads");
  if (st != INGOT_OK) return st;
  s->max_threads = n > 0 ? n : 0;
  ingot_session_leave(s);
  return INGOT_OK;
}
