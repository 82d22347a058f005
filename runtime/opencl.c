/* The OpenCL device: runs device artifacts (IngotArtifact.device_code in OpenCL C) through the
 * OpenCL ICD loader, opened with dlopen at the first load of such an artifact, so that neither
 * the runtime nor CPU-only machines need OpenCL. At model load: the first GPU device of any
 * platform (else the first device of any type; $INGOT_OPENCL_DEVICE=N picks the N-th device in
 * platform order), the device's context (one per device, shared by the process's models), the
 * program built from the source and the constants copied to the device. Per session: a command
 * queue, the kernels (argument state is per kernel object), and device buffers for the workspace,
 * the inputs and the outputs. A run writes the inputs, enqueues the launches in order on the
 * in-order queue, and reads the outputs back into the session's host buffers.
 *
 * The few OpenCL entry points and constants used are declared here by their Khronos ABI (the
 * ICD loader's stable C interface) instead of including CL/cl.h, so the runtime builds without
 * OpenCL headers, cross builds included. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id* cl_platform_id;
typedef struct _cl_device_id* cl_device_id;
typedef struct _cl_context* cl_context;
typedef struct _cl_command_queue* cl_command_queue;
typedef struct _cl_mem* cl_mem;
typedef struct _cl_program* cl_program;
typedef struct _cl_kernel* cl_kernel;
typedef struct _cl_event* cl_event;
typedef intptr_t cl_context_properties;

#define CL_SUCCESS 0
#define CL_DEVICE_TYPE_GPU (1 << 2)
#define CL_DEVICE_TYPE_ALL 0xFFFFFFFF
#define CL_MEM_READ_WRITE (1 << 0)
#define CL_MEM_READ_ONLY (1 << 2)
#define CL_MEM_COPY_HOST_PTR (1 << 5)
#define CL_PROGRAM_BUILD_LOG 0x1183
#define CL_DEVICE_NAME 0x102B
#define CL_TRUE 1
#define CL_FALSE 0

/* The entry points, by name, with their types. */
#define INGOT_CL_FUNCTIONS(X)                                                                    \
  X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id*, cl_uint*))                              \
  X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_bitfield, cl_uint, cl_device_id*, cl_uint*))     \
  X(clGetDeviceInfo, cl_int, (cl_device_id, cl_uint, size_t, void*, size_t*))                    \
  X(clCreateContext, cl_context,                                                                 \
    (const cl_context_properties*, cl_uint, const cl_device_id*,                                 \
     void (*)(const char*, const void*, size_t, void*), void*, cl_int*))                         \
  X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, cl_bitfield, cl_int*))    \
  X(clCreateProgramWithSource, cl_program,                                                       \
    (cl_context, cl_uint, const char**, const size_t*, cl_int*))                                 \
  X(clBuildProgram, cl_int,                                                                      \
    (cl_program, cl_uint, const cl_device_id*, const char*, void (*)(cl_program, void*), void*)) \
  X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_uint, size_t, void*, size_t*))  \
  X(clCreateKernel, cl_kernel, (cl_program, const char*, cl_int*))                               \
  X(clCreateBuffer, cl_mem, (cl_context, cl_bitfield, size_t, void*, cl_int*))                   \
  X(clEnqueueWriteBuffer, cl_int,                                                                \
    (cl_command_queue, cl_mem, cl_uint, size_t, size_t, const void*, cl_uint, const cl_event*,   \
     cl_event*))                                                                                 \
  X(clEnqueueReadBuffer, cl_int,                                                                 \
    (cl_command_queue, cl_mem, cl_uint, size_t, size_t, void*, cl_uint, const cl_event*,         \
     cl_event*))                                                                                 \
  X(clSetKernelArg, cl_int, (cl_kernel, cl_uint, size_t, const void*))                           \
  X(clEnqueueNDRangeKernel, cl_int,                                                              \
    (cl_command_queue, cl_kernel, cl_uint, const size_t*, const size_t*, const size_t*, cl_uint, \
     const cl_event*, cl_event*))                                                                \
  X(clFinish, cl_int, (cl_command_queue))                                                        \
  X(clReleaseMemObject, cl_int, (cl_mem))                                                        \
  X(clReleaseKernel, cl_int, (cl_kernel))                                                        \
  X(clReleaseProgram, cl_int, (cl_program))                                                      \
  X(clReleaseCommandQueue, cl_int, (cl_command_queue))                                           \
  X(clReleaseContext, cl_int, (cl_context))                                                      \
  X(clRetainContext, cl_int, (cl_context))

typedef struct OpenCL {
#define INGOT_X(name, ret, args) ret(*name) args;
  INGOT_CL_FUNCTIONS(INGOT_X)
#undef INGOT_X
} OpenCL;

static OpenCL g_cl;
static int g_cl_loaded; /* 1 loaded, -1 failed */
static char g_cl_error[256];
static pthread_mutex_t g_cl_lock = PTHREAD_MUTEX_INITIALIZER;

/* The loader's name: $INGOT_OPENCL_LIBRARY (tests point it at a missing file), else the ICD
 * loader's soname. */
static const char* loader_name(void) {
  const char* env = getenv("INGOT_OPENCL_LIBRARY");
  return env && *env ? env : "libOpenCL.so.1";
}

static int load_opencl(void) {
  pthread_mutex_lock(&g_cl_lock);
  if (g_cl_loaded == 0) {
    void* h = dlopen(loader_name(), RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
      const char* why = dlerror();
      snprintf(g_cl_error, sizeof(g_cl_error), "cannot open the OpenCL ICD loader %s (%s)",
               loader_name(), why ? why : "unknown error");
      g_cl_loaded = -1;
    } else {
      g_cl_loaded = 1;
#define INGOT_X(name, ret, args)                                                     \
  if (g_cl_loaded == 1) {                                                            \
    *(void**)(&g_cl.name) = dlsym(h, #name);                                         \
    if (g_cl.name == NULL) {                                                         \
      snprintf(g_cl_error, sizeof(g_cl_error), "the OpenCL ICD loader %s has no %s", \
               loader_name(), #name);                                                \
      g_cl_loaded = -1;                                                              \
    }                                                                                \
  }
      INGOT_CL_FUNCTIONS(INGOT_X)
#undef INGOT_X
    }
  }
  int ok = g_cl_loaded == 1;
  pthread_mutex_unlock(&g_cl_lock);
  return ok;
}

struct IngotDeviceModel {
  cl_device_id device;
  cl_context context;
  cl_program program;
  cl_mem constants;
  char device_name[128];
};

struct IngotDeviceSession {
  cl_command_queue queue;
  cl_kernel* kernels; /* one per device function */
  cl_mem workspace;
  cl_mem* inputs;
  cl_mem* outputs;
};

/* OpenCL refuses zero-sized buffers. */
static size_t buffer_size(uint64_t bytes) {
  return bytes < INGOT_ALIGNMENT ? INGOT_ALIGNMENT : (size_t)bytes;
}

static ingot_status pick_device(const char* path, cl_device_id* out) {
  cl_platform_id platforms[16];
  cl_uint np = 0;
  if (g_cl.clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0)
    return ingot_fail(INGOT_ERR_LOAD,
                      "artifact '%s' needs an OpenCL device, but no OpenCL platform is installed "
                      "(an ICD such as Debian's pocl-opencl-icd or the GPU vendor's)",
                      path);
  const char* env = getenv("INGOT_OPENCL_DEVICE");
  long want = env && *env ? strtol(env, NULL, 10) : -1;
  cl_device_id first_any = NULL, first_gpu = NULL;
  long index = 0;
  for (cl_uint p = 0; p < np && p < 16; ++p) {
    cl_device_id devices[16];
    cl_uint nd = 0;
    if (g_cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS)
      continue;
    for (cl_uint d = 0; d < nd && d < 16; ++d, ++index) {
      if (index == want) {
        *out = devices[d];
        return INGOT_OK;
      }
      if (first_any == NULL) first_any = devices[d];
    }
    cl_uint ng = 0;
    if (first_gpu == NULL &&
        g_cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &first_gpu, &ng) != CL_SUCCESS)
      first_gpu = NULL;
  }
  if (want >= 0)
    return ingot_fail(INGOT_ERR_LOAD, "INGOT_OPENCL_DEVICE=%ld: there are only %ld OpenCL devices",
                      want, index);
  *out = first_gpu ? first_gpu : first_any;
  if (*out == NULL)
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' needs an OpenCL device; none was found", path);
  return INGOT_OK;
}

typedef struct IngotDeviceModel IngotDeviceModel;
typedef struct IngotDeviceSession IngotDeviceSession;

/* One context per device for the whole process, shared by every model loaded on it, as TVM's
 * OpenCL workspace and ONNX Runtime's OpenCL provider keep one: a model takes a reference, the
 * cache keeps its own for the life of the process. Besides the driver's per-context memory, a
 * context per model would cost PoCL its compiler's start at every load (it parses its kernel
 * library, ~0.7 s, once per context). */
#define INGOT_MAX_CONTEXTS 16
static struct {
  cl_device_id device;
  cl_context context;
} g_contexts[INGOT_MAX_CONTEXTS];
static int g_num_contexts;

/* A reference to the device's shared context (created on first use); NULL with *err set. */
static cl_context shared_context(cl_device_id device, cl_int* err) {
  cl_context context = NULL;
  *err = CL_SUCCESS;
  pthread_mutex_lock(&g_cl_lock);
  for (int i = 0; i < g_num_contexts && context == NULL; ++i)
    if (g_contexts[i].device == device) context = g_contexts[i].context;
  if (context == NULL) {
    context = g_cl.clCreateContext(NULL, 1, &device, NULL, NULL, err);
    if (context != NULL && *err == CL_SUCCESS && g_num_contexts < INGOT_MAX_CONTEXTS) {
      g_contexts[g_num_contexts].device = device;
      g_contexts[g_num_contexts++].context = context; /* the cache's reference */
      g_cl.clRetainContext(context);                  /* the caller's */
    }
  } else {
    g_cl.clRetainContext(context);
  }
  pthread_mutex_unlock(&g_cl_lock);
  return *err == CL_SUCCESS ? context : NULL;
}

static void opencl_model_free(void* model) {
  IngotDeviceModel* d = model;
  if (d == NULL) return;
  if (d->constants) g_cl.clReleaseMemObject(d->constants);
  if (d->program) g_cl.clReleaseProgram(d->program);
  if (d->context) g_cl.clReleaseContext(d->context);
  free(d);
}

/* The program built from the artifact's source with `options`; NULL with *status set. */
static cl_program build_program(const char* path, IngotDeviceModel* d, const char* src, size_t len,
                                const char* options, ingot_status* status) {
  cl_int err = 0;
  cl_program program = g_cl.clCreateProgramWithSource(d->context, 1, &src, &len, &err);
  if (program == NULL || err != CL_SUCCESS) {
    *status = ingot_fail(INGOT_ERR_LOAD, "artifact '%s': OpenCL rejected its program (%d)", path,
                         (int)err);
    return NULL;
  }
  err = g_cl.clBuildProgram(program, 1, &d->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    char log[400] = {0};
    g_cl.clGetProgramBuildInfo(program, d->device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log,
                               NULL);
    for (char* c = log; *c; ++c)
      if (*c == '\n' || *c == '\r') *c = ' ';
    g_cl.clReleaseProgram(program);
    *status =
        ingot_fail(INGOT_ERR_LOAD, "artifact '%s': the OpenCL program does not build on %s: %s",
                   path, d->device_name, log);
    return NULL;
  }
  return program;
}

ingot_status ingot_opencl_model_init(const char* path, const IngotArtifact* a, void** out) {
  *out = NULL;
  const IngotDeviceCode* code = a->device_code;
  if (!load_opencl())
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s' needs OpenCL: %s", path, g_cl_error);
  IngotDeviceModel* d = calloc(1, sizeof(IngotDeviceModel));
  if (d == NULL) return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
  ingot_status st = pick_device(path, &d->device);
  if (st != INGOT_OK) {
    free(d);
    return st;
  }
  g_cl.clGetDeviceInfo(d->device, CL_DEVICE_NAME, sizeof(d->device_name) - 1, d->device_name, NULL);
  cl_int err = 0;
  d->context = shared_context(d->device, &err);
  if (d->context == NULL || err != CL_SUCCESS) {
    opencl_model_free(d);
    return ingot_fail(INGOT_ERR_LOAD, "artifact '%s': cannot create an OpenCL context on %s (%d)",
                      path, d->device_name, (int)err);
  }
  const char* src = code->code;
  size_t len = (size_t)code->code_bytes;
  /* $INGOT_OPENCL_BUILD_OPTIONS: options for the device's compiler (none by default). */
  const char* options = getenv("INGOT_OPENCL_BUILD_OPTIONS");
  d->program = build_program(path, d, src, len, options ? options : "", &st);
  if (st != INGOT_OK) {
    opencl_model_free(d);
    return st;
  }
  d->constants = g_cl.clCreateBuffer(
      d->context, CL_MEM_READ_ONLY | (a->constant_bytes ? CL_MEM_COPY_HOST_PTR : 0),
      buffer_size(a->constant_bytes), a->constant_bytes ? (void*)code->constants : NULL, &err);
  if (d->constants == NULL || err != CL_SUCCESS) {
    opencl_model_free(d);
    return ingot_fail(INGOT_ERR_OUT_OF_MEMORY,
                      "artifact '%s': cannot copy its %llu bytes of constants to %s (%d)", path,
                      (unsigned long long)a->constant_bytes, d->device_name, (int)err);
  }
  *out = d;
  return INGOT_OK;
}

static void opencl_session_free(const IngotArtifact* a, void* session) {
  IngotDeviceSession* d = session;
  if (d == NULL) return;
  const IngotDeviceCode* code = a->device_code;
  for (int32_t i = 0; d->kernels && i < code->num_functions; ++i)
    if (d->kernels[i]) g_cl.clReleaseKernel(d->kernels[i]);
  for (int32_t i = 0; d->inputs && i < a->num_inputs; ++i)
    if (d->inputs[i]) g_cl.clReleaseMemObject(d->inputs[i]);
  for (int32_t i = 0; d->outputs && i < a->num_outputs; ++i)
    if (d->outputs[i]) g_cl.clReleaseMemObject(d->outputs[i]);
  if (d->workspace) g_cl.clReleaseMemObject(d->workspace);
  if (d->queue) g_cl.clReleaseCommandQueue(d->queue);
  free(d->kernels);
  free(d->inputs);
  free(d->outputs);
  free(d);
}

static ingot_status opencl_session_init(const IngotModel* m, void** out) {
  *out = NULL;
  const IngotArtifact* a = m->artifact;
  const IngotDeviceCode* code = a->device_code;
  IngotDeviceModel* dm = m->device;
  IngotDeviceSession* d = calloc(1, sizeof(IngotDeviceSession));
  if (d == NULL) return ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory creating a session");
  d->kernels = calloc((size_t)code->num_functions + 1, sizeof(cl_kernel));
  d->inputs = calloc((size_t)a->num_inputs + 1, sizeof(cl_mem));
  d->outputs = calloc((size_t)a->num_outputs + 1, sizeof(cl_mem));
  cl_int err = 0;
  ingot_status st = INGOT_OK;
  if (!d->kernels || !d->inputs || !d->outputs) {
    st = ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "out of memory creating a session");
  }
  if (st == INGOT_OK) {
    d->queue = g_cl.clCreateCommandQueue(dm->context, dm->device, 0, &err);
    if (d->queue == NULL || err != CL_SUCCESS)
      st = ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "cannot create an OpenCL queue on %s (%d)",
                      dm->device_name, (int)err);
  }
  for (int32_t i = 0; st == INGOT_OK && i < code->num_functions; ++i) {
    d->kernels[i] = g_cl.clCreateKernel(dm->program, code->function_names[i], &err);
    if (d->kernels[i] == NULL || err != CL_SUCCESS)
      st = ingot_fail(INGOT_ERR_LOAD, "model '%s': OpenCL kernel %s not found in its program (%d)",
                      a->model_name, code->function_names[i], (int)err);
  }
  if (st == INGOT_OK) {
    d->workspace = g_cl.clCreateBuffer(dm->context, CL_MEM_READ_WRITE,
                                       buffer_size(a->workspace_bytes), NULL, &err);
    if (d->workspace == NULL || err != CL_SUCCESS)
      st = ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "cannot allocate the %llu-byte workspace on %s (%d)",
                      (unsigned long long)a->workspace_bytes, dm->device_name, (int)err);
  }
  for (int32_t i = 0; st == INGOT_OK && i < a->num_inputs + a->num_outputs; ++i) {
    int is_in = i < a->num_inputs;
    int32_t k = is_in ? i : i - a->num_inputs;
    size_t bytes = buffer_size(is_in ? m->input_bytes[k] : m->output_bytes[k]);
    cl_mem b = g_cl.clCreateBuffer(dm->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (b == NULL || err != CL_SUCCESS) {
      st = ingot_fail(INGOT_ERR_OUT_OF_MEMORY, "cannot allocate %s '%s' on %s (%d)",
                      is_in ? "input" : "output", is_in ? a->inputs[k].name : a->outputs[k].name,
                      dm->device_name, (int)err);
    }
    (is_in ? d->inputs : d->outputs)[k] = b;
  }
  if (st != INGOT_OK) {
    opencl_session_free(a, d);
    return st;
  }
  *out = d;
  return INGOT_OK;
}

static ingot_status opencl_session_run(IngotSession* s, void (*begin)(void*, int32_t),
                                       void (*end)(void*, int32_t)) {
  const IngotModel* m = s->model;
  const IngotArtifact* a = m->artifact;
  const IngotDeviceCode* code = a->device_code;
  const IngotDeviceModel* dm = m->device;
  IngotDeviceSession* d = s->device;
  const char* name = a->model_name ? a->model_name : "";
  cl_int err = CL_SUCCESS;
  for (int32_t i = 0; err == CL_SUCCESS && i < a->num_inputs; ++i)
    if (m->input_bytes[i])
      err = g_cl.clEnqueueWriteBuffer(d->queue, d->inputs[i], CL_FALSE, 0, m->input_bytes[i],
                                      s->inputs[i], 0, NULL, NULL);
  if (err != CL_SUCCESS)
    return ingot_fail(INGOT_ERR_RUN, "model '%s': cannot copy the inputs to %s (%d)", name,
                      dm->device_name, (int)err);
  for (int32_t l = 0; l < code->num_launches; ++l) {
    const IngotDeviceLaunch* launch = &code->launches[l];
    cl_kernel k = d->kernels[launch->function];
    int first = ingot_launch_opens_kernel(code, l), last = ingot_launch_closes_kernel(code, l);
    if (begin && first) {
      g_cl.clFinish(d->queue);
      begin(s, launch->kernel);
    }
    for (int32_t j = 0; err == CL_SUCCESS && j < launch->num_args; ++j) {
      const IngotDeviceArg* arg = &code->args[launch->first_arg + j];
      cl_mem mem = NULL;
      cl_ulong offset = 0;
      switch (arg->kind) {
        case INGOT_DEVICE_ARG_INPUT:
          mem = d->inputs[arg->value];
          break;
        case INGOT_DEVICE_ARG_OUTPUT:
          mem = d->outputs[arg->value];
          break;
        case INGOT_DEVICE_ARG_WORKSPACE:
          mem = d->workspace, offset = (cl_ulong)arg->value;
          break;
        default:
          mem = dm->constants, offset = (cl_ulong)arg->value;
          break;
      }
      err = g_cl.clSetKernelArg(k, (cl_uint)(2 * j), sizeof(cl_mem), &mem);
      if (err == CL_SUCCESS)
        err = g_cl.clSetKernelArg(k, (cl_uint)(2 * j + 1), sizeof(cl_ulong), &offset);
    }
    size_t local[3], global[3];
    for (int i = 0; i < 3; ++i) {
      local[i] = launch->block[i];
      global[i] = (size_t)launch->grid[i] * launch->block[i];
    }
    if (err == CL_SUCCESS)
      err = g_cl.clEnqueueNDRangeKernel(d->queue, k, 3, NULL, global, local, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
      g_cl.clFinish(d->queue);
      return ingot_fail(INGOT_ERR_RUN, "model '%s': OpenCL launch of %s failed on %s (%d)", name,
                        code->function_names[launch->function], dm->device_name, (int)err);
    }
    if (end && last) {
      g_cl.clFinish(d->queue);
      end(s, launch->kernel);
    }
  }
  for (int32_t i = 0; err == CL_SUCCESS && i < a->num_outputs; ++i)
    if (m->output_bytes[i])
      err = g_cl.clEnqueueReadBuffer(d->queue, d->outputs[i], CL_FALSE, 0, m->output_bytes[i],
                                     s->outputs[i], 0, NULL, NULL);
  cl_int fin = g_cl.clFinish(d->queue);
  if (err != CL_SUCCESS || fin != CL_SUCCESS)
    return ingot_fail(INGOT_ERR_RUN, "model '%s': OpenCL run on %s failed (%d)", name,
                      dm->device_name, (int)(err != CL_SUCCESS ? err : fin));
  return INGOT_OK;
}

const IngotDeviceOps ingot_opencl_ops = {"OpenCL", opencl_session_init, opencl_session_free,
                                         opencl_session_run, opencl_model_free};
