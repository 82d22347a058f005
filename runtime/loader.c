/* Loading an artifact: dlopen, find the versioned record, validate it (magic, ABI version, record
 * size, tensor tables) and answer queries about its inputs and outputs. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_checksum.h"
#include "internal.h"

/* Size of the IngotArtifact record of this ABI version (fields up to and including `states`). */
#define INGOT_ARTIFACT_MIN_SIZE (offsetof(IngotArtifact, states) + sizeof(void*))

static ingot_status check_tensor_table(const char* path, const IngotArtifact* a, const char* what,
                                       int32_t count, const IngotTensorInfo* infos, size_t* bytes) {
  int is_input = strcmp(what, "input") == 0;
  if (count < 0 || (count > 0 && infos == NULL)) {
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid %s table", path, what);
  }
  for (int32_t i = 0; i < count; ++i) {
    const IngotTensorInfo* t = &infos[i];
    if (t->name == NULL || t->ndim < 0 || (t->ndim > 0 && t->shape == NULL)) {
      return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid %s %d", path, what, i);
    }
    if (!is_input && t->specialized_value != NULL) {
      return ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' is corrupt: output '%s' has a specialised value", path,
                        t->name);
    }
    int symbolic = 0;
    for (int32_t d = 0; d < t->ndim; ++d) symbolic |= t->shape[d] == -1;
    if (symbolic && a->num_symbols == 0) {
      return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: %s '%s' has a symbolic dim",
                        path, what, t->name);
    }
    /* Symbolic outputs are sized by the shape function afterwards. */
    bytes[i] = !symbolic ? ingot_tensor_bytes(t) : is_input ? ingot_input_max_bytes(a, t) : 0;
    if (bytes[i] == SIZE_MAX || t->dtype.bits == 0) {
      return ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' is corrupt: %s '%s' has an invalid shape "
                        "or dtype",
                        path, what, t->name);
    }
  }
  return INGOT_OK;
}

static ingot_status validate_record(const char* path, const IngotArtifact* a) {
  if (a->magic != INGOT_ARTIFACT_MAGIC) {
    return ingot_fail(INGOT_ERR_LOAD,
                      "artifact '%s' has bad magic 0x%016llx (expected 0x%016llx): not an ingot "
                      "artifact or corrupt",
                      path, (unsigned long long)a->magic, (unsigned long long)INGOT_ARTIFACT_MAGIC);
  }
  if (a->abi_version != INGOT_ABI_VERSION) {
    return ingot_fail(INGOT_ERR_LOAD,
                      "artifact '%s' was built for ingot ABI version %u, this runtime supports "
                      "version %u",
                      path, a->abi_version, INGOT_ABI_VERSION);
  }
  if (a->struct_size < INGOT_ARTIFACT_MIN_SIZE) {
    return ingot_fail(INGOT_ERR_LOAD,
                      "artifact '%s' is corrupt: record size %u is smaller than %u, the size "
                      "for ABI version %u",
                      path, a->struct_size, (unsigned)INGOT_ARTIFACT_MIN_SIZE, INGOT_ABI_VERSION);
  }
  if (a->device_type == kDLCPU && a->entry == NULL) {
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: no entry function", path);
  }
  if (a->device_type == kDLOpenCL || a->device_type == kDLCUDA) {
    const IngotDeviceCode* d = a->device_code;
    int format = a->device_type == kDLCUDA ? INGOT_DEVICE_CODE_CUDA : INGOT_DEVICE_CODE_OPENCL_C;
    if (d == NULL || d->format != format || d->code == NULL || d->num_functions < 0 ||
        (d->num_functions > 0 && d->function_names == NULL) || d->num_launches < 0 ||
        (d->num_launches > 0 && d->launches == NULL) || d->num_args < 0 ||
        (d->num_args > 0 && d->args == NULL)) {
      return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid device code", path);
    }
    for (int32_t l = 0; l < d->num_launches; ++l) {
      const IngotDeviceLaunch* x = &d->launches[l];
      if (x->function < 0 || x->function >= d->num_functions || x->first_arg < 0 ||
          x->num_args < 0 || x->first_arg + x->num_args > d->num_args) {
        return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid launch %d", path,
                          (int)l);
      }
    }
    for (int32_t i = 0; i < d->num_args; ++i) {
      const IngotDeviceArg* x = &d->args[i];
      int32_t n = x->kind == INGOT_DEVICE_ARG_INPUT    ? a->num_inputs
                  : x->kind == INGOT_DEVICE_ARG_OUTPUT ? a->num_outputs
                                                       : -1;
      uint64_t size =
          x->kind == INGOT_DEVICE_ARG_WORKSPACE ? a->workspace_bytes : a->constant_bytes;
      if (x->kind < 0 || x->kind > 3 || x->value < 0 || (n >= 0 && x->value >= n) ||
          (n < 0 && (uint64_t)x->value > size)) {
        return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid launch argument %d",
                          path, (int)i);
      }
    }
  }
  if (a->num_kernels < 0 || (a->num_kernels > 0 && a->kernels == NULL)) {
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' is corrupt: invalid kernel table", path);
  }
  return INGOT_OK;
}

static char* copy_string(const char* s) {
  size_t n = strlen(s) + 1;
  char* out = malloc(n);
  if (out != NULL) memcpy(out, s, n);
  return out;
}

INGOT_API ingot_status ingot_model_load(const char* path, IngotModel** out) {
  return ingot_model_load_ex(path, 0, out);
}

INGOT_API ingot_status ingot_model_load_for_inspection(const char* path, IngotModel** out) {
  return ingot_model_load_ex(path, INGOT_LOAD_FOR_INSPECTION, out);
}

INGOT_API ingot_status ingot_model_load_ex(const char* path, uint32_t flags, IngotModel** out) {
  if (out == NULL) return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_model_load: out is NULL");
  *out = NULL;
  if (path == NULL) return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_model_load: path is NULL");
  if ((flags & ~(uint32_t)(INGOT_LOAD_FOR_INSPECTION | INGOT_LOAD_SKIP_CHECKSUM)) != 0) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "ingot_model_load_ex: unknown flags 0x%x",
                      (unsigned)flags);
  }
  const int check_isa = (flags & INGOT_LOAD_FOR_INSPECTION) == 0;
  /* Nothing of the file is mapped before its headers, its trailer and its checksum pass. */
  ingot_status status = ingot_check_elf_file(path);
  if (status == INGOT_OK)
    status = ingot_check_artifact_trailer(path, (flags & INGOT_LOAD_SKIP_CHECKSUM) == 0);
  if (status != INGOT_OK) return status;
  /* A bare file name would make dlopen search the library path instead of the current folder. */
  void* handle = NULL;
  if (strchr(path, '/') == NULL) {
    size_t n = strlen(path);
    char* local = malloc(n + 3);
    if (local == NULL)
      return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
    memcpy(local, "./", 2);
    memcpy(local + 2, path, n + 1);
    handle = dlopen(local, RTLD_LOCAL | RTLD_NOW);
    free(local);
  } else {
    handle = dlopen(path, RTLD_LOCAL | RTLD_NOW);
  }
  if (handle == NULL) {
    const char* why = dlerror();
    return ingot_fail(INGOT_ERR_LOAD, "cannot load artifact '%s': %s", path,
                      why ? why : "unknown dlopen error");
  }
  dlerror();
  const IngotArtifact* a = (const IngotArtifact*)dlsym(handle, INGOT_ARTIFACT_SYMBOL);
  if (a == NULL) {
    dlclose(handle);
    return ingot_fail(INGOT_ERR_LOAD,
                      "artifact '%s' does not export the symbol '%s': not an ingot artifact", path,
                      INGOT_ARTIFACT_SYMBOL);
  }
  status = validate_record(path, a);
  if (status == INGOT_OK && check_isa && a->device_type != kDLCPU && a->device_type != kDLOpenCL &&
      a->device_type != kDLCUDA) {
    status = ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' targets device type %d; this runtime runs CPU (1), CUDA "
                        "(2) and OpenCL (4) artifacts",
                        path, (int)a->device_type);
  }
  /* Before anything of the artifact's code can run: the CPU must have what the code uses. */
  if (status == INGOT_OK && check_isa) status = ingot_check_isa(path, a->isa_features);
  IngotModel* m = NULL;
  if (status == INGOT_OK) {
    m = calloc(1, sizeof(IngotModel));
    if (m != NULL) {
      m->handle = handle;
      m->artifact = a;
      m->path = copy_string(path);
      m->input_bytes = calloc((size_t)a->num_inputs + 1, sizeof(size_t));
      m->output_bytes = calloc((size_t)a->num_outputs + 1, sizeof(size_t));
      m->value_symbol = calloc((size_t)(a->num_symbols > 0 ? a->num_symbols : 0) + 1, 1);
    }
    if (m == NULL || m->path == NULL || m->input_bytes == NULL || m->output_bytes == NULL ||
        m->value_symbol == NULL) {
      status = ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory loading artifact '%s'", path);
    }
  }
  if (status == INGOT_OK) {
    status = ingot_check_symbols(path, a);
    if (status == INGOT_OK) status = ingot_check_states(path, a);
    if (status == INGOT_OK) ingot_mark_value_symbols(a, m->value_symbol);
  }
  if (status == INGOT_OK) {
    status = check_tensor_table(path, a, "input", a->num_inputs, a->inputs, m->input_bytes);
  }
  if (status == INGOT_OK) {
    status = check_tensor_table(path, a, "output", a->num_outputs, a->outputs, m->output_bytes);
  }
  if (status == INGOT_OK && a->num_symbols > 0) {
    if (a->device_type != kDLCPU)
      status = ingot_fail(INGOT_ERR_LOAD,
                          "artifact '%s' is corrupt: a device artifact with symbols", path);
    else
      status = ingot_output_max_bytes(path, a, m->value_symbol, m->output_bytes);
  }
  /* A device artifact loaded to run: its device, program and constants now. */
  if (status == INGOT_OK && check_isa && a->device_type == kDLOpenCL) {
    status = ingot_opencl_model_init(path, a, &m->device);
    if (status == INGOT_OK) m->device_ops = &ingot_opencl_ops;
  }
  if (status == INGOT_OK && check_isa && a->device_type == kDLCUDA) {
    status = ingot_cuda_model_init(path, a, &m->device);
    if (status == INGOT_OK) m->device_ops = &ingot_cuda_ops;
  }
  if (status != INGOT_OK) {
    if (m != NULL) {
      m->handle = NULL;
      ingot_model_free(m);
    }
    dlclose(handle);
    return status;
  }
  *out = m;
  return INGOT_OK;
}

INGOT_API void ingot_model_free(IngotModel* model) {
  if (model == NULL) return;
  if (model->device_ops != NULL) model->device_ops->model_free(model->device);
  if (model->handle != NULL) dlclose(model->handle);
  free(model->path);
  free(model->input_bytes);
  free(model->output_bytes);
  free(model->value_symbol);
  free(model);
}

INGOT_API int32_t ingot_model_num_inputs(const IngotModel* model) {
  return model ? model->artifact->num_inputs : 0;
}

INGOT_API int32_t ingot_model_num_outputs(const IngotModel* model) {
  return model ? model->artifact->num_outputs : 0;
}

INGOT_API const IngotTensorInfo* ingot_model_input_info(const IngotModel* model, int32_t index) {
  if (model == NULL || index < 0 || index >= model->artifact->num_inputs) {
    ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input index %d out of range [0, %d)", index,
               model ? model->artifact->num_inputs : 0);
    return NULL;
  }
  return &model->artifact->inputs[index];
}

INGOT_API const IngotTensorInfo* ingot_model_output_info(const IngotModel* model, int32_t index) {
  if (model == NULL || index < 0 || index >= model->artifact->num_outputs) {
    ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "output index %d out of range [0, %d)", index,
               model ? model->artifact->num_outputs : 0);
    return NULL;
  }
  return &model->artifact->outputs[index];
}

static int32_t find_by_name(int32_t count, const IngotTensorInfo* infos, const char* name) {
  if (name == NULL) return -1;
  for (int32_t i = 0; i < count; ++i) {
    if (strcmp(infos[i].name, name) == 0) return i;
  }
  return -1;
}

INGOT_API int32_t ingot_model_find_input(const IngotModel* model, const char* name) {
  return model ? find_by_name(model->artifact->num_inputs, model->artifact->inputs, name) : -1;
}

INGOT_API int32_t ingot_model_find_output(const IngotModel* model, const char* name) {
  return model ? find_by_name(model->artifact->num_outputs, model->artifact->outputs, name) : -1;
}

INGOT_API const IngotArtifact* ingot_model_artifact(const IngotModel* model) {
  return model ? model->artifact : NULL;
}
