/* States (ABI 9): buffers a session keeps between runs, such as a decoder's key/value cache
 * (`ingot compile --kv-cache`). The table is checked at load; a session allocates each state at
 * its capacity, binds the shared length symbol before a run, refuses a run that would pass the
 * capacity, and moves the length on after a successful one. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int ingot_is_state_symbol(const IngotArtifact* a, int32_t k) {
  for (int32_t i = 0; i < a->num_states; ++i)
    if (a->states[i].length_symbol == k) return 1;
  return 0;
}

ingot_status ingot_check_states(const char* path, const IngotArtifact* a) {
  if (a->num_states < 0 || (a->num_states > 0 && a->states == NULL))
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid state table", path);
  if (a->num_states > 0 && a->device_type != kDLCPU)
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: a device artifact with states",
                      path);
  for (int32_t i = 0; i < a->num_states; ++i) {
    const IngotStateInfo* st = &a->states[i];
    const IngotTensorInfo* t = &st->info;
    int ok = t->name != NULL && t->ndim > 0 && t->shape != NULL && st->axis >= 0 &&
             st->axis < t->ndim && st->length_symbol >= 0 && st->length_symbol < a->num_symbols &&
             st->step_symbol >= -1 && st->step_symbol < a->num_symbols &&
             (st->step_symbol >= 0 || st->step >= 0) &&
             st->length_symbol == a->states[0].length_symbol && ingot_tensor_bytes(t) != SIZE_MAX &&
             t->dtype.bits != 0;
    for (int32_t d = 0; ok && d < t->ndim; ++d) ok = t->shape[d] >= 0;
    if (!ok)
      return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid state %d", path, i);
  }
  return INGOT_OK;
}

/* The entries a run appends: its step symbol's bound value, or the constant step. */
static int64_t state_step(const IngotSession* s, const IngotStateInfo* st) {
  return st->step_symbol >= 0 ? s->symbols[st->step_symbol] : st->step;
}

ingot_status ingot_bind_state_length(IngotSession* s) {
  const IngotArtifact* a = s->model->artifact;
  if (a->num_states == 0) return INGOT_OK;
  const IngotSymbolInfo* sym = &a->symbols[a->states[0].length_symbol];
  if (s->state_length < sym->min_value || s->state_length > sym->max_value)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "state '%s': its length %lld ('%s') is outside the bounds [%lld, %lld] the "
                      "model was compiled for; set it with ingot_session_set_state_length",
                      a->states[0].info.name, (long long)s->state_length, sym->name,
                      (long long)sym->min_value, (long long)sym->max_value);
  s->symbols[a->states[0].length_symbol] = s->state_length;
  return INGOT_OK;
}

ingot_status ingot_check_state_room(const IngotSession* s) {
  const IngotArtifact* a = s->model->artifact;
  for (int32_t i = 0; i < a->num_states; ++i) {
    const IngotStateInfo* st = &a->states[i];
    int64_t capacity = st->info.shape[st->axis];
    int64_t step = state_step(s, st);
    if (step < 0 || s->state_length + step > capacity)
      return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                        "state '%s': %lld entries plus %lld new ones exceed its capacity %lld; "
                        "start a new sequence (ingot_session_set_state_length) or compile with a "
                        "larger --kv-cache",
                        st->info.name, (long long)s->state_length, (long long)step,
                        (long long)capacity);
  }
  return INGOT_OK;
}

void ingot_advance_states(IngotSession* s) {
  const IngotArtifact* a = s->model->artifact;
  if (a->num_states > 0) s->state_length += state_step(s, &a->states[0]);
}

INGOT_API int32_t ingot_model_num_states(const IngotModel* model) {
  return model ? model->artifact->num_states : 0;
}

INGOT_API const IngotStateInfo* ingot_model_state_info(const IngotModel* model, int32_t index) {
  if (model == NULL || index < 0 || index >= model->artifact->num_states) {
    ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "state index %d out of range [0, %d)", index,
               model ? model->artifact->num_states : 0);
    return NULL;
  }
  return &model->artifact->states[index];
}

static ingot_status check_state_index(const IngotSession* s, int32_t index) {
  int32_t n = s->model->artifact->num_states;
  if (index < 0 || index >= n)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "state index %d out of range [0, %d)", index, n);
  return INGOT_OK;
}

/* The smallest capacity of the states (they share the length). */
static int64_t min_capacity(const IngotArtifact* a) {
  int64_t c = INT64_MAX;
  for (int32_t i = 0; i < a->num_states; ++i)
    if (a->states[i].info.shape[a->states[i].axis] < c)
      c = a->states[i].info.shape[a->states[i].axis];
  return a->num_states > 0 ? c : 0;
}

static ingot_status set_length_unguarded(IngotSession* s, int64_t length) {
  const IngotArtifact* a = s->model->artifact;
  if (a->num_states == 0)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "model '%s' has no state (compile it with --kv-cache)",
                      a->model_name ? a->model_name : "");
  int64_t capacity = min_capacity(a);
  if (length < 0 || length > capacity)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "state length %lld is outside [0, %lld]",
                      (long long)length, (long long)capacity);
  s->state_length = length;
  return INGOT_OK;
}

/* Bytes of one entry-long slab: the dims after the axis, and the count of slabs before it. */
static void state_geometry(const IngotStateInfo* st, size_t* inner_bytes, size_t* outer) {
  size_t inner = ingot_dtype_bytes(st->info.dtype);
  for (int32_t d = st->axis + 1; d < st->info.ndim; ++d) inner *= (size_t)st->info.shape[d];
  size_t o = 1;
  for (int32_t d = 0; d < st->axis; ++d) o *= (size_t)st->info.shape[d];
  *inner_bytes = inner;
  *outer = o;
}

static ingot_status set_state_unguarded(IngotSession* s, int32_t index, const DLTensor* t) {
  ingot_status status = check_state_index(s, index);
  if (status != INGOT_OK) return status;
  const IngotStateInfo* st = &s->model->artifact->states[index];
  const IngotTensorInfo* info = &st->info;
  char want[160], got[160];
  if (t == NULL || t->shape == NULL || t->device.device_type != kDLCPU || t->ndim != info->ndim ||
      t->dtype.code != info->dtype.code || t->dtype.bits != info->dtype.bits)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "state '%s': expected a CPU tensor of its dtype and rank %d", info->name,
                      (int)info->ndim);
  for (int32_t d = 0; d < info->ndim; ++d)
    if ((d == st->axis && (t->shape[d] < 0 || t->shape[d] > info->shape[d])) ||
        (d != st->axis && t->shape[d] != info->shape[d]))
      return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                        "state '%s': expected shape %s (dim %d at most %lld), got %s", info->name,
                        ingot_format_shape(info->shape, info->ndim, want, sizeof(want)),
                        (int)st->axis, (long long)info->shape[st->axis],
                        ingot_format_shape(t->shape, t->ndim, got, sizeof(got)));
  int64_t length = t->shape[st->axis];
  if (t->data == NULL && length > 0)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "state '%s': data is NULL", info->name);
  status = set_length_unguarded(s, length);
  if (status != INGOT_OK) return status;
  /* The tensor's valid entries, densified, then copied slab by slab into the capacity layout. */
  size_t inner, outer;
  state_geometry(st, &inner, &outer);
  size_t rows = (size_t)length * inner;
  if (rows == 0) return INGOT_OK;
  void* dense = ingot_aligned_alloc(outer * rows);
  if (dense == NULL)
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "state '%s': out of memory", info->name);
  ingot_copy_to_dense(t, ingot_dtype_bytes(info->dtype), dense);
  char* base = (char*)s->outputs[s->model->artifact->num_outputs + index];
  size_t slab = (size_t)info->shape[st->axis] * inner;
  for (size_t o = 0; o < outer; ++o) memcpy(base + o * slab, (char*)dense + o * rows, rows);
  ingot_aligned_free(dense);
  return INGOT_OK;
}

static ingot_status state_view_unguarded(const IngotSession* s, int32_t index, DLTensor* view) {
  ingot_status status = check_state_index(s, index);
  if (status != INGOT_OK) return status;
  if (view == NULL)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_session_state: view is NULL");
  const IngotStateInfo* st = &s->model->artifact->states[index];
  const IngotTensorInfo* info = &st->info;
  int64_t* shape = s->state_view_shapes[index];
  int64_t* strides = s->state_view_strides[index];
  int64_t stride = 1;
  for (int32_t d = info->ndim - 1; d >= 0; --d) {
    shape[d] = d == st->axis ? s->state_length : info->shape[d];
    strides[d] = stride;
    stride *= info->shape[d];
  }
  memset(view, 0, sizeof(*view));
  view->data = s->outputs[s->model->artifact->num_outputs + index];
  view->device.device_type = kDLCPU;
  view->ndim = info->ndim;
  view->dtype.code = info->dtype.code;
  view->dtype.bits = info->dtype.bits;
  view->dtype.lanes = 1;
  view->shape = shape;
  view->strides = strides;
  return INGOT_OK;
}

INGOT_API ingot_status ingot_session_state_length(const IngotSession* s, int64_t* length) {
  IngotSession* guarded = (IngotSession*)s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_state_length");
  if (st != INGOT_OK) return st;
  if (length == NULL)
    st = ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_session_state_length: length is NULL");
  else
    *length = s->state_length;
  ingot_session_leave(guarded);
  return st;
}

INGOT_API ingot_status ingot_session_set_state_length(IngotSession* s, int64_t length) {
  ingot_status st = ingot_session_enter(s, "ingot_session_set_state_length");
  if (st != INGOT_OK) return st;
  st = set_length_unguarded(s, length);
  ingot_session_leave(s);
  return st;
}

INGOT_API ingot_status ingot_session_set_state(IngotSession* s, int32_t index,
                                               const DLTensor* tensor) {
  ingot_status st = ingot_session_enter(s, "ingot_session_set_state");
  if (st != INGOT_OK) return st;
  st = set_state_unguarded(s, index, tensor);
  ingot_session_leave(s);
  return st;
}

INGOT_API ingot_status ingot_session_state(const IngotSession* s, int32_t index, DLTensor* view) {
  IngotSession* guarded = (IngotSession*)s;
  ingot_status st = ingot_session_enter(guarded, "ingot_session_state");
  if (st != INGOT_OK) return st;
  st = state_view_unguarded(s, index, view);
  ingot_session_leave(guarded);
  return st;
}
