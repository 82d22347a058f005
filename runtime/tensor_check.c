/* Checks a caller's DLTensor against an input's declared dtype and shape, with messages that
 * name the input, and copies non-compact tensors into dense row-major buffers. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

INGOT_API size_t ingot_dtype_bytes(IngotDType dtype) {
  size_t lanes = dtype.lanes == 0 ? 1 : dtype.lanes;
  return ((size_t)dtype.bits * lanes + 7) / 8;
}

INGOT_API const char* ingot_dtype_name(IngotDType dtype, char* buf, size_t buf_size) {
  const char* base = NULL;
  switch (dtype.code) {
    case 0:
      base = "int";
      break;
    case 1:
      base = "uint";
      break;
    case 2:
      base = "float";
      break;
    case 4:
      base = "bfloat";
      break;
    case 6:
      base = "bool";
      break;
    default:
      base = NULL;
      break;
  }
  if (base == NULL) {
    snprintf(buf, buf_size, "dtype(code=%u,bits=%u)", dtype.code, dtype.bits);
  } else if (dtype.code == 6 && dtype.bits == 8) {
    snprintf(buf, buf_size, "bool");
  } else if (dtype.lanes > 1) {
    snprintf(buf, buf_size, "%s%ux%u", base, dtype.bits, dtype.lanes);
  } else {
    snprintf(buf, buf_size, "%s%u", base, dtype.bits);
  }
  return buf;
}

const char* ingot_format_shape(const int64_t* shape, int32_t ndim, char* buf, size_t buf_size) {
  size_t used = (size_t)snprintf(buf, buf_size, "[");
  for (int32_t i = 0; i < ndim && used < buf_size; ++i) {
    used +=
        (size_t)snprintf(buf + used, buf_size - used, i ? ",%lld" : "%lld", (long long)shape[i]);
  }
  if (used < buf_size) snprintf(buf + used, buf_size - used, "]");
  return buf;
}

size_t ingot_tensor_bytes(const IngotTensorInfo* info) {
  size_t n = ingot_dtype_bytes(info->dtype);
  for (int32_t i = 0; i < info->ndim; ++i) {
    if (info->shape[i] < 0) return SIZE_MAX;
    size_t d = (size_t)info->shape[i];
    if (d != 0 && n > SIZE_MAX / d) return SIZE_MAX;
    n *= d;
  }
  return n;
}

/* "[1,seq,768]": an input's declared shape, symbols by name. */
static const char* format_declared_shape(const IngotTensorInfo* info, char* buf, size_t buf_size) {
  size_t used = (size_t)snprintf(buf, buf_size, "[");
  for (int32_t i = 0; i < info->ndim && used < buf_size; ++i) {
    const char* sep = i ? "," : "";
    if (info->shape[i] == -1 && info->dim_names != NULL && info->dim_names[i] != NULL)
      used += (size_t)snprintf(buf + used, buf_size - used, "%s%s", sep, info->dim_names[i]);
    else
      used +=
          (size_t)snprintf(buf + used, buf_size - used, "%s%lld", sep, (long long)info->shape[i]);
  }
  if (used < buf_size) snprintf(buf + used, buf_size - used, "]");
  return buf;
}

static int same_dtype(IngotDType want, DLDataType got) {
  uint16_t want_lanes = want.lanes == 0 ? 1 : want.lanes;
  return want.code == got.code && want.bits == got.bits && want_lanes == got.lanes;
}

static int is_row_major(const DLTensor* t) {
  if (t->strides == NULL) return 1;
  int64_t expect = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expect) return 0;
    expect *= t->shape[i];
  }
  return 1;
}

ingot_status ingot_check_input_tensor(const IngotTensorInfo* info, const DLTensor* tensor,
                                      int* compact) {
  char want[256], got[256];
  if (tensor == NULL)
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s': tensor is NULL", info->name);
  if (tensor->device.device_type != kDLCPU && tensor->device.device_type != kDLCUDAHost) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "input '%s': expected a CPU tensor, got device type %d", info->name,
                      (int)tensor->device.device_type);
  }
  IngotDType got_dtype = {tensor->dtype.code, tensor->dtype.bits, tensor->dtype.lanes};
  if (!same_dtype(info->dtype, tensor->dtype)) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s': expected dtype %s, got %s",
                      info->name, ingot_dtype_name(info->dtype, want, sizeof(want)),
                      ingot_dtype_name(got_dtype, got, sizeof(got)));
  }
  int shape_ok = tensor->ndim == info->ndim && (tensor->ndim == 0 || tensor->shape != NULL);
  int empty = 0;
  for (int32_t i = 0; shape_ok && i < info->ndim; ++i) {
    /* A symbolic dim takes any size here; its bounds are checked when the run binds it. */
    shape_ok =
        tensor->shape[i] == info->shape[i] || (info->shape[i] == -1 && tensor->shape[i] >= 0);
    empty |= tensor->shape[i] == 0;
  }
  if (!shape_ok) {
    int got_ndim = tensor->shape == NULL ? 0 : tensor->ndim;
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s': expected shape %s, got %s",
                      info->name, format_declared_shape(info, want, sizeof(want)),
                      ingot_format_shape(tensor->shape, got_ndim, got, sizeof(got)));
  }
  if (tensor->data == NULL && !empty && ingot_dtype_bytes(info->dtype) != 0) {
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT, "input '%s': tensor data is NULL", info->name);
  }
  size_t elem = ingot_dtype_bytes(info->dtype);
  uintptr_t addr = (uintptr_t)tensor->data + (uintptr_t)tensor->byte_offset;
  *compact = is_row_major(tensor) && (elem == 0 || addr % elem == 0 || (elem & (elem - 1)) != 0);
  return INGOT_OK;
}

static void copy_dim(const DLTensor* t, int dim, const char* src, char** dst, size_t elem) {
  int64_t stride = 1;
  if (t->strides != NULL) {
    stride = t->strides[dim];
  } else {
    for (int i = dim + 1; i < t->ndim; ++i) stride *= t->shape[i];
  }
  for (int64_t i = 0; i < t->shape[dim]; ++i) {
    const char* p = src + i * stride * (int64_t)elem;
    if (dim == t->ndim - 1) {
      memcpy(*dst, p, elem);
      *dst += elem;
    } else {
      copy_dim(t, dim + 1, p, dst, elem);
    }
  }
}

void ingot_copy_to_dense(const DLTensor* tensor, size_t elem_bytes, void* dst) {
  const char* src = (const char*)tensor->data + tensor->byte_offset;
  char* out = (char*)dst;
  if (tensor->ndim == 0) {
    memcpy(out, src, elem_bytes);
    return;
  }
  copy_dim(tensor, 0, src, &out, elem_bytes);
}
