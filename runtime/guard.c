/* The run-time guard of specialised inputs: an input compiled for one value
 * (`ingot compile --specialize-inputs`) must be fed exactly that value (byte for byte), or the run
 * fails before the artifact's entry is called, naming the input and both values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Elements shown per value in the message before "...". */
#define GUARD_MAX_SHOWN 16

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13); /* inf / nan */
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else { /* subnormal: normalise */
    exp = 113;
    while ((mant & 0x400) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

/* Shortest of %g / full precision that reads back as the same value. */
static int format_real(char* buf, size_t size, double v, int is_float32) {
  int n = snprintf(buf, size, "%g", v);
  double back = strtod(buf, NULL);
  int same = is_float32 ? (float)back == (float)v : back == v;
  if (!same && v == v) n = snprintf(buf, size, is_float32 ? "%.9g" : "%.17g", v);
  return n;
}

static int format_element(char* buf, size_t size, IngotDType t, const unsigned char* p) {
  union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
  } u;
  size_t bytes = ingot_dtype_bytes(t);
  if (bytes > sizeof(u) || t.lanes > 1) return snprintf(buf, size, "?");
  memcpy(&u, p, bytes);
  switch (t.code) {
    case 0: /* int */
      if (t.bits == 8) return snprintf(buf, size, "%d", (int)u.i8);
      if (t.bits == 16) return snprintf(buf, size, "%d", (int)u.i16);
      if (t.bits == 32) return snprintf(buf, size, "%ld", (long)u.i32);
      if (t.bits == 64) return snprintf(buf, size, "%lld", (long long)u.i64);
      break;
    case 1: /* uint */
      if (t.bits == 8) return snprintf(buf, size, "%u", (unsigned)u.u8);
      if (t.bits == 16) return snprintf(buf, size, "%u", (unsigned)u.u16);
      if (t.bits == 32) return snprintf(buf, size, "%lu", (unsigned long)u.u32);
      if (t.bits == 64) return snprintf(buf, size, "%llu", (unsigned long long)u.u64);
      break;
    case 2: /* float */
      if (t.bits == 16) return format_real(buf, size, half_to_float(u.u16), 1);
      if (t.bits == 32) return format_real(buf, size, u.f32, 1);
      if (t.bits == 64) return format_real(buf, size, u.f64, 0);
      break;
    case 4: /* bfloat: the upper half of a float32 */
      if (t.bits == 16) {
        union {
          uint32_t u;
          float f;
        } w;
        w.u = (uint32_t)u.u16 << 16;
        return format_real(buf, size, w.f, 1);
      }
      break;
    case 6: /* bool */
      return snprintf(buf, size, "%s", u.u8 ? "true" : "false");
    default:
      break;
  }
  return snprintf(buf, size, "?");
}

typedef struct Out {
  char* buf;
  size_t size, used;
  int64_t shown;
} Out;

static void put(Out* o, const char* s) {
  size_t n = strlen(s);
  if (o->used + n >= o->size) n = o->used + 1 < o->size ? o->size - o->used - 1 : 0;
  memcpy(o->buf + o->used, s, n);
  o->used += n;
  o->buf[o->used] = '\0';
}

/* Nested lists as numpy prints them ("[[1, 2], [3, 4]]"); a scalar bare ("5"); at most
 * GUARD_MAX_SHOWN elements, then "...". */
static void format_dim(Out* o, const IngotTensorInfo* info, const unsigned char* data, int32_t dim,
                       int64_t offset, size_t elem) {
  if (dim == info->ndim) {
    char tmp[48];
    format_element(tmp, sizeof(tmp), info->dtype, data + (size_t)offset * elem);
    put(o, tmp);
    ++o->shown;
    return;
  }
  int64_t stride = 1;
  for (int32_t d = dim + 1; d < info->ndim; ++d) stride *= info->shape[d];
  put(o, "[");
  for (int64_t i = 0; i < info->shape[dim]; ++i) {
    if (i) put(o, ", ");
    if (o->shown >= GUARD_MAX_SHOWN) {
      put(o, "...");
      break;
    }
    format_dim(o, info, data, dim + 1, offset + i * stride, elem);
  }
  put(o, "]");
}

static const char* format_value(const IngotTensorInfo* info, const void* data, char* buf,
                                size_t size) {
  Out o = {buf, size, 0, 0};
  buf[0] = '\0';
  format_dim(&o, info, (const unsigned char*)data, 0, 0, ingot_dtype_bytes(info->dtype));
  return buf;
}

ingot_status ingot_check_specialized_inputs(const IngotModel* model, void* const* inputs) {
  const IngotArtifact* a = model->artifact;
  for (int32_t i = 0; i < a->num_inputs; ++i) {
    const IngotTensorInfo* info = &a->inputs[i];
    size_t bytes = model->input_bytes[i];
    if (info->specialized_value == NULL || bytes == 0) continue;
    if (memcmp(info->specialized_value, inputs[i], bytes) == 0) continue;
    char want[300], got[300];
    return ingot_fail(INGOT_ERR_INVALID_ARGUMENT,
                      "input '%s' was specialised at compile time to %s; got %s; recompile with "
                      "its new value",
                      info->name, format_value(info, info->specialized_value, want, sizeof(want)),
                      format_value(info, inputs[i], got, sizeof(got)));
  }
  return INGOT_OK;
}
