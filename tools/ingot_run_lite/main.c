/* ingot_run_lite: runs a compiled artifact with nothing but the runtime library and libc, for
 * machines (or emulators) where the ingot CLI, which links LLVM, is not built:
 *
 *   ingot_run_lite MODEL.so [-i [NAME=]FILE.npy]... [-o OUTDIR] [--threads N] [--repeat N]
 *                  [--profile]
 *
 * Each -i binds a .npy file to the input NAME, or without NAME to the next input in order; its
 * dtype and shape must be the input's. With -o, output k is written to OUTDIR/k.npy and
 * OUTDIR/outputs.txt lists "k<TAB>name" per line. --repeat N (N > 1) times N runs after one
 * untimed warm-up run (which also captures a CUDA artifact's graph) and prints their mean.
 * --profile prints, per kernel, its time per run over the runs (each kernel's launches timed
 * between synchronisations, without the copies of inputs and outputs) and its GFLOP/s:
 * "kernel NAME: X ms per run, Y GFLOP/s".
 * Exit status 0, or 1 with one "error: ..." line. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingot/runtime.h"
#include "npy.h"

#define MAX_BINDINGS 256

static const char* usage =
    "usage: ingot_run_lite MODEL.so [-i [NAME=]FILE.npy]... [-o OUTDIR] [--threads N] "
    "[--repeat N] [--profile]\n";

static int error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static int error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "error: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return 1;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void describe(const IngotTensorInfo* info, char* buf, size_t size) {
  char dt[32];
  int n = snprintf(buf, size, "%s [", ingot_dtype_name(info->dtype, dt, sizeof(dt)));
  for (int32_t d = 0; d < info->ndim && n < (int)size; ++d)
    n += snprintf(buf + n, size - (size_t)n, "%s%lld", d ? "," : "", (long long)info->shape[d]);
  if (n < (int)size) snprintf(buf + n, size - (size_t)n, "]");
}

static void describe_npy(const NpyArray* a, char* buf, size_t size) {
  IngotTensorInfo info = {"", a->dtype, a->ndim, a->shape, NULL, NULL};
  describe(&info, buf, size);
}

static int same_type(const IngotTensorInfo* info, const NpyArray* a) {
  if (info->dtype.code != a->dtype.code || info->dtype.bits != a->dtype.bits ||
      info->dtype.lanes != a->dtype.lanes || info->ndim != a->ndim)
    return 0;
  for (int32_t d = 0; d < a->ndim; ++d) /* a symbolic dim (-1) takes any size */
    if (info->shape[d] != a->shape[d] && info->shape[d] != -1) return 0;
  return 1;
}

int main(int argc, char** argv) {
  const char* model_path = NULL;
  const char* out_dir = NULL;
  const char* bindings[MAX_BINDINGS];
  int num_bindings = 0, threads = 0, repeat = 1, profile = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    int has_value = i + 1 < argc;
    if ((strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0) && has_value) {
      if (num_bindings == MAX_BINDINGS) return error("too many inputs (at most %d)", MAX_BINDINGS);
      bindings[num_bindings++] = argv[++i];
    } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--outputs") == 0) && has_value) {
      out_dir = argv[++i];
    } else if (strcmp(a, "--threads") == 0 && has_value) {
      threads = atoi(argv[++i]);
    } else if (strcmp(a, "--repeat") == 0 && has_value) {
      repeat = atoi(argv[++i]);
      if (repeat < 1) return error("--repeat must be at least 1, got '%s'", argv[i]);
    } else if (strcmp(a, "--profile") == 0) {
      profile = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (a[0] != '-' && model_path == NULL) {
      model_path = a;
    } else {
      fputs(usage, stderr);
      return error("unknown or incomplete option '%s'", a);
    }
  }
  if (model_path == NULL) {
    fputs(usage, stderr);
    return 1;
  }
  if (threads > 0 && ingot_set_num_threads(threads) != INGOT_OK)
    return error("%s", ingot_last_error());

  IngotModel* model = NULL;
  IngotSession* session = NULL;
  NpyArray arrays[MAX_BINDINGS];
  int num_arrays = 0, rc = 1;
  char what[256], have[256], msg[512];
  if (ingot_model_load(model_path, &model) != INGOT_OK) {
    error("%s", ingot_last_error());
    goto done;
  }
  if (ingot_session_create(model, &session) != INGOT_OK) {
    error("%s", ingot_last_error());
    goto done;
  }
  int32_t num_inputs = ingot_model_num_inputs(model);
  int next = 0;
  for (int b = 0; b < num_bindings; ++b) {
    const char* spec = bindings[b];
    const char* eq = strchr(spec, '=');
    int32_t index;
    const char* file = spec;
    if (eq != NULL) {
      char name[256];
      size_t len = (size_t)(eq - spec);
      if (len >= sizeof(name)) len = sizeof(name) - 1;
      memcpy(name, spec, len);
      name[len] = '\0';
      index = ingot_model_find_input(model, name);
      if (index < 0) {
        error("the model has no input '%s' (binding '%s')", name, spec);
        goto done;
      }
      file = eq + 1;
    } else {
      index = next;
      if (index >= num_inputs) {
        error("more -i files than the model's %d inputs ('%s')", (int)num_inputs, spec);
        goto done;
      }
    }
    next = index + 1;
    NpyArray* arr = &arrays[num_arrays];
    if (npy_read(file, arr, msg, sizeof(msg)) != 0) {
      error("%s", msg);
      goto done;
    }
    ++num_arrays;
    const IngotTensorInfo* info = ingot_model_input_info(model, index);
    if (!same_type(info, arr)) {
      describe(info, what, sizeof(what));
      describe_npy(arr, have, sizeof(have));
      error("input '%s' is %s, file '%s' holds %s", info->name, what, file, have);
      goto done;
    }
    /* A DLTensor carries the shape that binds symbolic dims; the runtime copies the data when
     * the file's buffer is not aligned for the dtype, and `arrays` outlives the runs. */
    DLTensor t;
    memset(&t, 0, sizeof(t));
    t.data = arr->data;
    t.device.device_type = kDLCPU;
    t.ndim = arr->ndim;
    t.dtype.code = arr->dtype.code;
    t.dtype.bits = arr->dtype.bits;
    t.dtype.lanes = arr->dtype.lanes == 0 ? 1 : arr->dtype.lanes;
    t.shape = arr->shape;
    if (ingot_session_set_input(session, index, &t) != INGOT_OK) {
      error("%s", ingot_last_error());
      goto done;
    }
  }
  if (repeat > 1 && ingot_session_run(session) != INGOT_OK) {
    error("%s", ingot_last_error());
    goto done;
  }
  if (profile && ingot_session_set_profiling(session, 1) != INGOT_OK) {
    error("%s", ingot_last_error());
    goto done;
  }
  double total = 0.0;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now_seconds();
    if (ingot_session_run(session) != INGOT_OK) {
      error("%s", ingot_last_error());
      goto done;
    }
    total += now_seconds() - t0;
  }
  if (repeat > 1)
    printf("mean %.3f ms over %d runs (after a warm-up run)\n", total * 1e3 / repeat, repeat);
  const IngotArtifact* artifact = ingot_model_artifact(model);
  for (int32_t k = 0; profile && k < artifact->num_kernels; ++k) {
    double seconds = 0.0;
    int64_t calls = 0;
    if (ingot_session_kernel_time(session, k, &seconds, &calls) != INGOT_OK) {
      error("%s", ingot_last_error());
      goto done;
    }
    const IngotKernelInfo* kernel = &artifact->kernels[k];
    double gflops = seconds > 0 ? kernel->flops * (double)calls / seconds * 1e-9 : 0.0;
    printf("kernel %s: %.4f ms per run, %.4g GFLOP/s\n", kernel->name, seconds * 1e3 / repeat,
           gflops);
  }
  FILE* manifest = NULL;
  if (out_dir != NULL) {
    snprintf(msg, sizeof(msg), "%s/outputs.txt", out_dir);
    manifest = fopen(msg, "w");
    if (manifest == NULL) {
      error("cannot write '%s'", msg);
      goto done;
    }
  }
  for (int32_t k = 0; k < ingot_model_num_outputs(model); ++k) {
    const IngotTensorInfo* info = ingot_model_output_info(model, k);
    DLTensor view;
    if (ingot_session_output(session, k, &view) != INGOT_OK) {
      error("%s", ingot_last_error());
      if (manifest) fclose(manifest);
      goto done;
    }
    /* This run's shape: symbolic dims are bound by the inputs. */
    IngotTensorInfo run_info = *info;
    run_info.shape = view.shape;
    size_t nbytes = ingot_dtype_bytes(info->dtype);
    for (int32_t d = 0; d < view.ndim; ++d) nbytes *= (size_t)view.shape[d];
    describe(&run_info, what, sizeof(what));
    printf("output %d %s %s\n", (int)k, info->name, what);
    if (manifest == NULL) continue;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%d.npy", out_dir, (int)k);
    if (npy_write(path, info->dtype, view.ndim, view.shape,
                  (const char*)view.data + view.byte_offset, nbytes, msg, sizeof(msg)) != 0) {
      error("%s", msg);
      fclose(manifest);
      goto done;
    }
    fprintf(manifest, "%d\t%s\n", (int)k, info->name);
  }
  if (manifest != NULL && fclose(manifest) != 0) {
    error("cannot write '%s/outputs.txt'", out_dir);
    goto done;
  }
  rc = 0;
done:
  for (int a = 0; a < num_arrays; ++a) npy_free(&arrays[a]);
  ingot_session_free(session);
  ingot_model_free(model);
  return rc;
}
