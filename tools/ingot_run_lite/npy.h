/* Minimal .npy reading and writing (NumPy's format 1.0-3.0, C order, little-endian) for
 * ingot_run_lite: C11 and libc only, so the runner cross-builds with the runtime alone. */
#ifndef INGOT_RUN_LITE_NPY_H_
#define INGOT_RUN_LITE_NPY_H_

#include <stddef.h>
#include <stdint.h>

#include "ingot/abi.h"

#define NPY_MAX_DIMS 16

typedef struct NpyArray {
  IngotDType dtype;
  int32_t ndim;
  int64_t shape[NPY_MAX_DIMS];
  void* data; /* malloc'ed, nbytes */
  size_t nbytes;
} NpyArray;

/* Reads `path` into *out. Returns 0, or -1 with a message in err (err_size bytes). Only C-order
 * arrays of bool, (u)int8-64 and float16/32/64 in little-endian (or byte-sized) form. */
int npy_read(const char* path, NpyArray* out, char* err, size_t err_size);
/* Writes a C-order array of `dtype` and `shape`. Returns 0, or -1 with a message in err. */
int npy_write(const char* path, IngotDType dtype, int32_t ndim, const int64_t* shape,
              const void* data, size_t nbytes, char* err, size_t err_size);
void npy_free(NpyArray* a);

#endif /* INGOT_RUN_LITE_NPY_H_ */
