/* Minimal .npy I/O (see npy.h). The header is a Python dict literal, e.g.
 * {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }, padded with spaces and
 * a newline; this reads the three keys it needs and writes the same form. */
#define _POSIX_C_SOURCE 200809L
#include "npy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int fail(char* err, size_t size, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, size, fmt, ap);
  va_end(ap);
  return -1;
}

/* descr ("<f4", "|b1", "<i8", ...) <-> IngotDType (DLPack codes: 0 int, 1 uint, 2 float, 4 bfloat,
 * 6 bool); bfloat16 is "<V2" (or "|V2"), as numpy with ml_dtypes saves it (docs/bfloat16.md) */
static int dtype_of_descr(const char* d, IngotDType* t) {
  size_t n = strlen(d);
  if (n < 3 || (d[0] != '<' && d[0] != '|' && d[0] != '=')) return -1;
  char kind = d[1];
  int bytes = atoi(d + 2);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) return -1;
  if (d[0] == '|' && bytes != 1 && kind != 'V') return -1;
  t->lanes = 1;
  t->bits = (uint8_t)(bytes * 8);
  switch (kind) {
    case 'b':
      if (bytes != 1) return -1;
      t->code = 6;
      return 0;
    case 'i':
      t->code = 0;
      return 0;
    case 'u':
      t->code = 1;
      return 0;
    case 'f':
      if (bytes == 1) return -1;
      t->code = 2;
      return 0;
    case 'V':
      if (bytes != 2) return -1;
      t->code = 4;
      return 0;
    default:
      return -1;
  }
}

static int descr_of_dtype(IngotDType t, char* out, size_t size) {
  int bytes = t.bits / 8;
  if (t.lanes != 1 || t.bits % 8 != 0 || bytes < 1 || bytes > 8) return -1;
  char kind;
  switch (t.code) {
    case 0:
      kind = 'i';
      break;
    case 1:
      kind = 'u';
      break;
    case 2:
      if (bytes == 1) return -1;
      kind = 'f';
      break;
    case 4:
      if (bytes != 2) return -1;
      kind = 'V';
      break;
    case 6:
      kind = 'b';
      break;
    default:
      return -1;
  }
  snprintf(out, size, "%c%c%d", bytes == 1 ? '|' : '<', kind, bytes);
  return 0;
}

/* Finds 'key' in the header dict and returns a pointer just past the ':' and spaces. */
static const char* dict_value(const char* h, const char* key) {
  char quoted[64];
  snprintf(quoted, sizeof(quoted), "'%s'", key);
  const char* p = strstr(h, quoted);
  if (p == NULL) return NULL;
  p += strlen(quoted);
  while (*p == ' ') ++p;
  if (*p != ':') return NULL;
  ++p;
  while (*p == ' ') ++p;
  return p;
}

int npy_read(const char* path, NpyArray* out, char* err, size_t err_size) {
  memset(out, 0, sizeof(*out));
  FILE* f = fopen(path, "rb");
  if (f == NULL) return fail(err, err_size, "cannot open '%s': %s", path, strerror(errno));
  unsigned char pre[12];
  char* header = NULL;
  int rc = -1;
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fail(err, err_size, "'%s' is not a .npy file", path);
    goto done;
  }
  size_t hlen;
  if (pre[6] == 1) {
    hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
  } else if (pre[6] == 2 || pre[6] == 3) {
    if (fread(pre + 10, 1, 2, f) != 2) {
      fail(err, err_size, "'%s': truncated header", path);
      goto done;
    }
    hlen =
        (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
  } else {
    fail(err, err_size, "'%s': unsupported .npy version %d", path, pre[6]);
    goto done;
  }
  /* Sizes in the header are checked against the file before anything is allocated for them. */
  long here = ftell(f);
  struct stat st;
  size_t left = fstat(fileno(f), &st) == 0 && here >= 0 && st.st_size >= here
                    ? (size_t)(st.st_size - here)
                    : 0;
  if (hlen > left) {
    fail(err, err_size, "'%s': header length %zu exceeds the file's %zu remaining bytes", path,
         hlen, left);
    goto done;
  }
  left -= hlen;
  header = malloc(hlen + 1);
  if (header == NULL || fread(header, 1, hlen, f) != hlen) {
    fail(err, err_size, "'%s': truncated header", path);
    goto done;
  }
  header[hlen] = '\0';
  const char* v = dict_value(header, "descr");
  char descr[16] = {0};
  if (v == NULL || *v != '\'' || sscanf(v + 1, "%15[^']", descr) != 1 ||
      dtype_of_descr(descr, &out->dtype) != 0) {
    fail(err, err_size, "'%s': unsupported dtype (%s)", path, descr[0] ? descr : "no descr");
    goto done;
  }
  v = dict_value(header, "fortran_order");
  if (v == NULL || strncmp(v, "False", 5) != 0) {
    fail(err, err_size, "'%s': only C-order arrays are supported", path);
    goto done;
  }
  v = dict_value(header, "shape");
  if (v == NULL || *v != '(') {
    fail(err, err_size, "'%s': no shape in the header", path);
    goto done;
  }
  ++v;
  size_t count = 1;
  while (1) {
    while (*v == ' ' || *v == ',') ++v;
    if (*v == ')') break;
    char* end = NULL;
    long long d = strtoll(v, &end, 10);
    if (end == v || d < 0 || out->ndim >= NPY_MAX_DIMS) {
      fail(err, err_size, "'%s': bad shape in the header", path);
      goto done;
    }
    out->shape[out->ndim++] = d;
    if (d != 0 && count > SIZE_MAX / (size_t)d)
      count = SIZE_MAX; /* overflow: far too big */
    else
      count *= (size_t)d;
    v = end;
  }
  size_t elem = out->dtype.bits / 8;
  if (count > left / (elem ? elem : 1)) {
    fail(err, err_size, "'%s': file is shorter than the data its header describes", path);
    goto done;
  }
  out->nbytes = count * elem;
  out->data = malloc(out->nbytes ? out->nbytes : 1);
  if (out->data == NULL) {
    fail(err, err_size, "'%s': out of memory", path);
    goto done;
  }
  if (fread(out->data, 1, out->nbytes, f) != out->nbytes) {
    fail(err, err_size, "'%s': file is shorter than its %zu bytes of data", path, out->nbytes);
    goto done;
  }
  rc = 0;
done:
  free(header);
  fclose(f);
  if (rc != 0) npy_free(out);
  return rc;
}

int npy_write(const char* path, IngotDType dtype, int32_t ndim, const int64_t* shape,
              const void* data, size_t nbytes, char* err, size_t err_size) {
  char descr[8];
  if (descr_of_dtype(dtype, descr, sizeof(descr)) != 0)
    return fail(err, err_size, "'%s': dtype (code %d, %d bits) has no .npy form", path, dtype.code,
                dtype.bits);
  char dict[1024];
  int n = snprintf(dict, sizeof(dict), "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t i = 0; i < ndim && n < (int)sizeof(dict); ++i)
    n += snprintf(dict + n, sizeof(dict) - (size_t)n, "%lld,%s", (long long)shape[i],
                  i + 1 < ndim ? " " : "");
  if (n < (int)sizeof(dict)) n += snprintf(dict + n, sizeof(dict) - (size_t)n, "), }");
  if (n >= (int)sizeof(dict) - 80) return fail(err, err_size, "'%s': header too long", path);
  /* Version 1.0: 10-byte preamble; the total header is padded to a multiple of 64. */
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  size_t hlen = (size_t)n + pad + 1;
  memset(dict + n, ' ', pad);
  dict[hlen - 1] = '\n';
  FILE* f = fopen(path, "wb");
  if (f == NULL) return fail(err, err_size, "cannot write '%s': %s", path, strerror(errno));
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           (unsigned char)(hlen & 0xff),
                           (unsigned char)(hlen >> 8)};
  int ok = fwrite(pre, 1, 10, f) == 10 && fwrite(dict, 1, hlen, f) == hlen &&
           (nbytes == 0 || fwrite(data, 1, nbytes, f) == nbytes);
  if (fclose(f) != 0) ok = 0;
  if (!ok) return fail(err, err_size, "cannot write '%s': %s", path, strerror(errno));
  return 0;
}

void npy_free(NpyArray* a) {
  free(a->data);
  a->data = NULL;
}
