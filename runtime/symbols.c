/* Symbolic dims (ABI version 6): the symbol table checked at load, tensors sized at the symbols'
 * largest values, the symbols bound from the input shapes of a run (within their bounds and the
 * same in every input), and the output shapes of the run from the artifact's shape function,
 * the output buffers growing when a run needs more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int32_t ingot_symbol_index(const IngotArtifact* a, const char* name) {
  for (int32_t i = 0; name != NULL && i < a->num_symbols; ++i)
    if (strcmp(a->symbols[i].name, name) == 0) return i;
  return -1;
}

static const char* dim_name(const IngotTensorInfo* t, int32_t d) {
  return t->dim_names != NULL && t->dim_names[d] != NULL ? t->dim_names[d] : "";
}

/* Whether symbol k is the dim of some input (else the value function computes it). */
static int is_input_symbol(const IngotArtifact* a, int32_t k) {
  for (int32_t i = 0; i < a->num_inputs; ++i)
    for (int32_t d = 0; d < a->inputs[i].ndim; ++d)
      if (a->inputs[i].shape[d] == -1 && ingot_symbol_index(a, dim_name(&a->inputs[i], d)) == k)
        return 1;
  return 0;
}

void ingot_mark_value_symbols(const IngotArtifact* a, uint8_t* value_symbol) {
  for (int32_t k = 0; k < a->num_symbols; ++k)
    value_symbol[k] = a->value_fn != NULL && !is_input_symbol(a, k) && !ingot_is_state_symbol(a, k);
}

ingot_status ingot_check_symbols(const char* path, const IngotArtifact* a) {
  if (a->num_symbols < 0 || (a->num_symbols > 0 && (a->symbols == NULL || a->shape_fn == NULL)))
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid symbol table", path);
  for (int32_t i = 0; i < a->num_symbols; ++i) {
    const IngotSymbolInfo* s = &a->symbols[i];
    if (s->name == NULL || s->max_value < s->min_value || ingot_symbol_index(a, s->name) != i)
      return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid symbol %d", path, i);
  }
  for (int32_t i = 0; i < a->num_inputs; ++i) {
    const IngotTensorInfo* t = &a->inputs[i];
    for (int32_t d = 0; d < t->ndim; ++d) {
      if (t->shape[d] >= 0) continue;
      if (t->shape[d] != -1 || ingot_symbol_index(a, dim_name(t, d)) < 0)
        return ingot_fail(INGOT_ERR_LOAD,
                          "artifact '%s' is corrupt: dim %d of input '%s' names no symbol", path,
                          (int)d, t->name);
    }
  }
  return INGOT_OK;
}

/* The byte size of `t` with `dims` (-1 entries: the symbol's largest value for an input). */
static size_t bytes_of(const IngotArtifact* a, const IngotTensorInfo* t, const int64_t* dims) {
  size_t n = ingot_dtype_bytes(t->dtype);
  for (int32_t d = 0; d < t->ndim; ++d) {
    int64_t v = dims[d];
    if (v == -1) {
      int32_t k = ingot_symbol_index(a, dim_name(t, d));
      if (k < 0) return SIZE_MAX;
      v = a->symbols[k].max_value;
    }
    if (v < 0) return SIZE_MAX;
    if (v != 0 && n > SIZE_MAX / (size_t)v) return SIZE_MAX;
    n *= (size_t)v;
  }
  return n;
}

size_t ingot_input_max_bytes(const IngotArtifact* a, const IngotTensorInfo* t) {
  return bytes_of(a, t, t->shape);
}

ingot_status ingot_output_max_bytes(const char* path, const IngotArtifact* a,
                                    const uint8_t* value_symbol, size_t* bytes) {
  size_t total = 0;
  for (int32_t i = 0; i < a->num_outputs; ++i) total += (size_t)a->outputs[i].ndim;
  int64_t* maxima = calloc((size_t)a->num_symbols + 1, sizeof(int64_t));
  int64_t* dims = calloc(total + 1, sizeof(int64_t));
  if (maxima == NULL || dims == NULL) {
    free(maxima);
    free(dims);
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
  }
  /* Value symbols can be vast at their bounds; their outputs start small and grow per run. */
  for (int32_t k = 0; k < a->num_symbols; ++k)
    maxima[k] = value_symbol[k] ? a->symbols[k].min_value : a->symbols[k].max_value;
  ingot_status st = INGOT_OK;
  if (a->shape_fn(maxima, dims) != 0) {
    st = ingot_fail(INGOT_ERR_LOAD, "artifact '%s': its shape function failed", path);
  }
  size_t at = 0;
  for (int32_t i = 0; st == INGOT_OK && i < a->num_outputs; ++i) {
    bytes[i] = bytes_of(a, &a->outputs[i], dims + at);
    at += (size_t)a->outputs[i].ndim;
    if (bytes[i] == SIZE_MAX)
      st = ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: output '%s' has an invalid shape",
                      path, a->outputs[i].name);
  }
  free(maxima);
  free(dims);
  return st;
}

ingot_status ingot_bind_symbols(IngotSession* s) {
  const IngotArtifact* a = s->model->artifact;
  for (int32_t k = 0; k < a->num_symbols; ++k) s->symbols[k] = -1;
  for (int32_t i = 0; i < a->num_inputs; ++i) {
    const IngotTensorInfo* t = &a->inputs[i];
    for (int32_t d = 0; d < t->ndim; ++d) {
      if (t->shape[d] != -1) continue;
      int32_t k = ingot_symbol_index(a, dim_name(t, d));
      const IngotSymbolInfo* sym = &a->symbols[k];
      int64_t v = s->input_shapes[i][d];
      if (v < sym->min_value || v > sym->max_value)
        return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                          "input '%s': dim %d ('%s') is %lld, outside the bounds [%lld, %lld] "
                          "the model was compiled for",
                          t->name, (int)d, sym->name, (long long)v, (long long)sym->min_value,
                          (long long)sym->max_value);
      if (s->symbols[k] >= 0 && s->symbols[k] != v) {
        /* Name the first input that bound it. */
        const char* first = "";
        for (int32_t j = 0; j < i && first[0] == '\0'; ++j)
          for (int32_t e = 0; e < a->inputs[j].ndim; ++e)
            if (a->inputs[j].shape[e] == -1 &&
                ingot_symbol_index(a, dim_name(&a->inputs[j], e)) == k &&
                s->input_shapes[j][e] == s->symbols[k])
              first = a->inputs[j].name;
        return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                          "input '%s': dim %d ('%s') is %lld, but input '%s' has '%s' = %lld",
                          t->name, (int)d, sym->name, (long long)v, first, sym->name,
                          (long long)s->symbols[k]);
      }
      s->symbols[k] = v;
    }
  }
  ingot_status bound = ingot_bind_state_length(s);
  if (bound != INGOT_OK) return bound;
  if (a->value_fn != NULL) {
    int32_t status = a->value_fn((void* const*)s->inputs, s->symbols);
    if (status > 0 && status <= a->num_symbols)
      return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                        "the values of the model's shape-deciding inputs are invalid for dim '%s' "
                        "(sizes that do not multiply out or broadcast, a negative size, axes out "
                        "of range or repeated, a zero step)",
                        a->symbols[status - 1].name);
    if (status != 0)
      return ingot_fail(INGOT_ERR_RUN, "model '%s': its value function failed",
                        a->model_name ? a->model_name : "");
    for (int32_t k = 0; k < a->num_symbols; ++k) {
      const IngotSymbolInfo* sym = &a->symbols[k];
      if (!s->model->value_symbol[k]) continue;
      if (s->symbols[k] < sym->min_value || s->symbols[k] > sym->max_value)
        return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                          "the values of the model's shape-deciding inputs make dim '%s' %lld, "
                          "outside [%lld, %lld]",
                          sym->name, (long long)s->symbols[k], (long long)sym->min_value,
                          (long long)sym->max_value);
    }
  }
  for (int32_t k = 0; k < a->num_symbols; ++k)
    if (s->symbols[k] < 0 && !s->model->value_symbol[k])
      return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                        "symbol '%s' is not the dim of any input: the artifact is corrupt",
                        a->symbols[k].name);
  return INGOT_OK;
}

ingot_status ingot_size_workspace(IngotSession* s) {
  const IngotArtifact* a = s->model->artifact;
  uint64_t need = 0;
  if (a->workspace_fn(s->symbols, &need) != 0 || (need > a->workspace_bytes && a->value_fn == NULL))
    return ingot_fail(INGOT_ERR_RUN, "model '%s': its workspace function failed",
                      a->model_name ? a->model_name : "");
  if (need <= s->workspace_capacity && s->workspace != NULL) return INGOT_OK;
  void* grown = ingot_aligned_alloc(need > 0 ? (size_t)need : 64);
  if (grown == NULL)
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY,
                      "model '%s': out of memory growing the workspace to %llu bytes",
                      a->model_name ? a->model_name : "", (unsigned long long)need);
  ingot_aligned_free(s->workspace);
  s->workspace = grown;
  s->workspace_capacity = (size_t)need;
  return INGOT_OK;
}

/* The output shapes under the session's symbols. Before a run (`after_run` 0) an output buffer
 * that is too small grows. After one (1), the sizes the data decided (NonZero, Compress, Unique,
 * NonMaxSuppression), which the entry's counting kernels wrote into the symbols, are read back:
 * they are at most the bounds the buffers were sized for before the run. */
static ingot_status output_shapes(IngotSession* s, int after_run) {
  const IngotArtifact* a = s->model->artifact;
  if (a->shape_fn(s->symbols, s->output_dims) != 0)
    return ingot_fail(INGOT_ERR_RUN, "model '%s': its shape function failed",
                      a->model_name ? a->model_name : "");
  size_t at = 0;
  for (int32_t i = 0; i < a->num_outputs; ++i) {
    const IngotTensorInfo* t = &a->outputs[i];
    const int64_t* dims = s->output_dims + at;
    at += (size_t)t->ndim;
    size_t need = bytes_of(a, t, dims);
    if (need == SIZE_MAX || (after_run && need > s->output_capacity[i]))
      return ingot_fail(INGOT_ERR_RUN, "output '%s': its shape under these inputs is invalid",
                        t->name);
    if (t->ndim > 0) memcpy(s->output_shapes[i], dims, sizeof(int64_t) * (size_t)t->ndim);
    if (need <= s->output_capacity[i]) continue;
    void* grown = ingot_aligned_alloc(need);
    if (grown == NULL)
      return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "output '%s': out of memory (%zu bytes)", t->name,
                        need);
    ingot_aligned_free(s->outputs[i]);
    s->outputs[i] = grown;
    s->output_capacity[i] = need;
  }
  return INGOT_OK;
}

ingot_status ingot_read_output_shapes(IngotSession* s) {
  return output_shapes(s, 1);
}

ingot_status ingot_update_output_shapes(IngotSession* s) {
  return output_shapes(s, 0);
}
